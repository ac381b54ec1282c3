// The socket loop's ceiling for bench/move_path.py: a stand-in for stakeout that does no
// game work, so that `http_load.mjs play BASE KEY GAMES SECONDS socket` against it measures
// the driver alone (its own ceiling, as Node's bare http server is for the HTTP loops).
//
//   node socket_ceiling.mjs PORT VIEW_BYTES
//
// POST /v1/games answers a game of four seats; GET /v1/games/{id}/play upgrades to a
// WebSocket (the seat by its token) and pushes a view of about VIEW_BYTES of JSON (the size
// of a real view, measured by the bench), on connect and after every act to all four; the
// seats move in turn, one move each, and the game ends after 400 moves. Frames as stakeout's:
// {"type": "view", "version", "view"} and {"type": "answer", "ref", "status", "body"}.
import { createServer } from "node:http";
import { WebSocketServer } from "ws";

const [port, viewBytes] = [Number(process.argv[2]), Number(process.argv[3] ?? 2000)];
const deflate = process.env.SOCKET_DEFLATE === "1"; // as the driver offers it
const games = new Map();
let made = 0;
const pad = "x".repeat(Math.max(0, viewBytes - 200));

function view(game, seat) {
  const status = game.moves >= 400 ? "finished" : "active";
  return {
    id: game.id,
    version: game.version,
    status,
    you: seat,
    awaiting: status === "active" ? [{ seat: game.turn, action: "move" }] : [],
    legal: [{ card: 0 }, { card: 1 }, { card: 2 }],
    state: { pad },
  };
}

function push(game, seat) {
  const ws = game.sockets[seat];
  if (ws) ws.send(JSON.stringify({ type: "view", version: game.version, view: view(game, seat) }));
}

const server = createServer((req, res) => {
  if (req.method === "POST" && req.url === "/v1/games") {
    req.resume();
    req.on("end", () => {
      const id = `g${(made += 1)}`;
      games.set(id, { id, version: 1, turn: 0, moves: 0, sockets: [null, null, null, null] });
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ id, seats: [0, 1, 2, 3].map((s) => ({ token: `${id}.${s}` })) }));
    });
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"status":"ok"}');
});

const wss = new WebSocketServer({ noServer: true, perMessageDeflate: deflate });
server.on("upgrade", (req, socket, head) => {
  const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
  const [id, seatText] = token.split(".");
  const game = games.get(id);
  if (!game || req.url !== `/v1/games/${id}/play`) return socket.destroy();
  wss.handleUpgrade(req, socket, head, (ws) => {
    const seat = Number(seatText);
    game.sockets[seat] = ws;
    ws.on("message", (data) => {
      const frame = JSON.parse(data);
      if (frame.type !== "move" || seat !== game.turn || game.moves >= 400) return;
      game.version += 1;
      game.moves += 1;
      game.turn = (game.turn + 1) % 4;
      const body = { version: game.version, awaiting: view(game, seat).awaiting };
      ws.send(JSON.stringify({ type: "answer", ref: frame.ref, status: 200, body }));
      for (let s = 0; s < 4; s++) push(game, s);
    });
    ws.on("close", () => {
      game.sockets[seat] = null;
      if (game.sockets.every((s) => s === null)) games.delete(id);
    });
    push(game, seat);
  });
});

server.listen(port, "127.0.0.1");
