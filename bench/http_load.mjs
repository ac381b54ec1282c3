// HTTP and WebSocket load driver for bench/move_path.py (Node 18+, with undici and ws
// installed beside it at bench time). Light on purpose: one undici Pool, keep-alive, no JSON schema work beyond
// parsing the answers. Prints one JSON line of results.
//
//   node http_load.mjs healthz BASE CONNECTIONS SECONDS [PATH]
//   node http_load.mjs play BASE API_KEY GAMES SECONDS MODE [CONNECTIONS] [GAME]
//     MODE: get-post | prefer | socket;  CONNECTIONS: seat (default) | shared;  GAME: fbi (default),
//     or any other game the server has (bonnie_clyde: a seat acts several times in a row)
//
// play: GAMES concurrent 4-player games of GAME, every seat a client (its own token). Each game
// runs one loop: GET the acting seat's view, POST one legal act (a move, or a commitment
// then a reveal in sealed steps). The act's answer names the seats awaited next
// (`awaiting`), so the loop reads exactly one view per act. With MODE=prefer the POST asks
// for `Prefer: return=representation`, and the GET is skipped whenever the same seat acts
// again (its view came back with its act). A finished game is replaced by a new one, played
// by the same four clients.
//
// MODE=socket: every seat opens one WebSocket to GET /v1/games/{id}/play with its token (the
// `ws` package, installed beside undici) and never makes an HTTP request: the server pushes
// the seat's view on connect and on every change; the seat sends its act (a "move", "commit"
// or "reveal" frame) when a pushed view awaits it and it has no act of its own unanswered,
// and the act's "answer" frame comes back. Only the game's creation is a POST. Its act
// latency is from sending the act to its answer; its "loop" latency is from sending the act
// to the mover's next pushed view (boardgame.io's move latency: to the mover's next state).
//
// CONNECTIONS=seat: every seat is a client with a keep-alive connection of its own, as a
// player's device is (and as every boardgame.io seat has its own socket): a seat's GET and
// POST travel over its connection. CONNECTIONS=shared: all requests of all games share one
// pool of connections, so a seat's GET and its POST may reach different API processes.
import { createHash, randomBytes } from "node:crypto";
import { Client, Pool } from "undici";

const [mode, base, ...rest] = process.argv.slice(2);
const pool = new Pool(base, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(latencies) {
  const sorted = Float64Array.from(latencies).sort();
  return { p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99) };
}

async function request(method, path, headers, body, via = pool) {
  const started = performance.now();
  const res = await via.request({ method, path, headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, text, ms: performance.now() - started };
}

async function healthz(connections, seconds, path = "/healthz") {
  const latencies = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  async function loop() {
    while (performance.now() < end) {
      const r = await request("GET", path, {});
      if (r.status === 200) latencies.push(r.ms);
      else errors += 1;
    }
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return { requests_per_s: latencies.length / elapsed, errors, ...summary(latencies) };
}

// Canonical JSON as the server hashes it: sorted keys, no spaces.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function commitment(gameId, step, seat, move, salt) {
  const text = `sealed-v1|${gameId}|${step}|${seat}|${canonical(move)}|${salt}`;
  return createHash("sha256").update(text).digest("hex");
}

async function play(apiKey, games, seconds, loopMode, connections = "seat", gameName = "fbi") {
  if (loopMode === "socket") return playSockets(apiKey, games, seconds, gameName);
  const prefer = loopMode === "prefer";
  if (connections !== "seat" && connections !== "shared") throw new Error(`connections: ${connections}`);
  const clients = []; // every seat's own connection (CONNECTIONS=seat), closed at the end
  const actLatencies = [];
  const getLatencies = [];
  const loopLatencies = [];
  let acts = 0;
  let gets = 0;
  let finished = 0;
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const json = { "content-type": "application/json" };
  const failures = {}; // "what status problem-type": count, for the report

  function failed(r, what) {
    let type = "";
    try { type = JSON.parse(r.text).type ?? ""; } catch { /* not JSON */ }
    const key = `${what} ${r.status} ${type}`;
    failures[key] = (failures[key] ?? 0) + 1;
  }

  async function newGame() {
    const body = JSON.stringify({ game: gameName, seats: Array(4).fill({ type: "human" }) });
    const r = await request("POST", "/v1/games", { ...json, authorization: `Bearer ${apiKey}` }, body);
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
    const created = JSON.parse(r.text);
    return { id: created.id, tokens: created.seats.map((s) => s.token), kept: new Map() };
  }

  async function table() {
    // The table's four players: one connection each, or the shared pool.
    const seats = Array.from({ length: 4 }, () => {
      if (connections === "shared") return pool;
      const client = new Client(base, { pipelining: 1, keepAliveTimeout: 30_000 });
      clients.push(client);
      return client;
    });
    let game = await newGame();
    let view = null; // the view we hold, if it is current (prefer mode: the act's answer)
    let next = 0; // the seat awaited next, from the last act's answer (`awaiting`)
    while (performance.now() < end) {
      const loopStarted = performance.now();
      if (next === null) {
        // The last act ended the game: nobody is awaited.
        finished += 1;
        game = await newGame();
        view = null;
        next = 0;
      }
      if (!view || view.you !== next) {
        // Exactly one GET per act: the answer named the seat awaited next.
        const r = await request(
          "GET",
          `/v1/games/${game.id}`,
          { authorization: `Bearer ${game.tokens[next]}` },
          undefined,
          seats[next],
        );
        gets += 1;
        getLatencies.push(r.ms);
        if (r.status !== 200) { errors += 1; failed(r, "GET view"); continue; }
        view = JSON.parse(r.text);
        if (view.status !== "active") { next = null; continue; }
      }
      const action = view.awaiting.find((a) => a.seat === view.you);
      if (!action) {
        // A new game: seat 0's view was read, another seat opens (a second GET, once a game).
        next = view.awaiting[0]?.seat ?? null;
        view = null;
        continue;
      }
      const headers = { ...json, authorization: `Bearer ${game.tokens[view.you]}` };
      if (prefer) headers.prefer = "return=representation";
      let path;
      let body;
      if (action.action === "move") {
        path = "moves";
        body = view.legal[Math.floor(Math.random() * view.legal.length)];
      } else if (action.action === "commit") {
        const move = view.legal[Math.floor(Math.random() * view.legal.length)];
        const salt = randomBytes(16).toString("hex");
        game.kept.set(view.you, { move, salt });
        path = "commitments";
        body = { commitment: commitment(game.id, action.step, view.you, move, salt) };
      } else {
        path = "reveals";
        body = game.kept.get(view.you);
      }
      const r = await request(
        "POST",
        `/v1/games/${game.id}/${path}`,
        headers,
        JSON.stringify(body),
        seats[view.you],
      );
      if (r.status !== 200) { errors += 1; failed(r, path); view = null; continue; }
      acts += 1;
      actLatencies.push(r.ms);
      loopLatencies.push(performance.now() - loopStarted);
      const answer = JSON.parse(r.text);
      // Whose turn it is now, from the answer itself (no GET to find out).
      next = answer.awaiting.length ? answer.awaiting[0].seat : null;
      view = prefer ? answer.view : null;
    }
  }

  const started = performance.now();
  await Promise.all(Array.from({ length: games }, table));
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  const act = summary(actLatencies);
  const loop = summary(loopLatencies);
  return {
    acts_per_s: acts / elapsed,
    gets_per_s: gets / elapsed,
    act_p50_ms: act.p50_ms,
    act_p99_ms: act.p99_ms,
    loop_p50_ms: loop.p50_ms,
    loop_p99_ms: loop.p99_ms,
    games_finished: finished,
    errors,
    failures,
  };
}

// The act a seat sends for its view's awaited action: the POST's body, and which POST.
function actFor(view, action, game) {
  if (action.action === "move") {
    return { type: "move", body: view.legal[Math.floor(Math.random() * view.legal.length)] };
  }
  if (action.action === "commit") {
    const move = view.legal[Math.floor(Math.random() * view.legal.length)];
    const salt = randomBytes(16).toString("hex");
    game.kept.set(view.you, { move, salt });
    return { type: "commit", body: { commitment: commitment(game.id, action.step, view.you, move, salt) } };
  }
  return { type: "reveal", body: game.kept.get(view.you) };
}

// MODE=socket (see the top): GAMES concurrent games, every seat one WebSocket.
async function playSockets(apiKey, games, seconds, gameName) {
  const { default: WebSocket } = await import("ws");
  // permessage-deflate is offered only with SOCKET_DEFLATE=1 (a browser offers it; then the
  // server decides): boardgame.io's socket.io does not compress, and inflating every pushed
  // view would make this driver the bottleneck (ws's zlib: about a third of the rate).
  const deflate = process.env.SOCKET_DEFLATE === "1";
  const wsBase = base.replace(/^http/, "ws");
  const actLatencies = [];
  const viewLatencies = [];
  const openLatencies = [];
  const failures = {};
  const extensions = {};
  let acts = 0;
  let views = 0;
  let finished = 0;
  let errors = 0;
  let older = 0; // a view older than (or as old as) one the seat already had: never expected
  let refs = 0;
  const end = performance.now() + seconds * 1000;
  const json = { "content-type": "application/json" };

  function count(key) {
    failures[key] = (failures[key] ?? 0) + 1;
  }

  async function newGame() {
    const body = JSON.stringify({ game: gameName, seats: Array(4).fill({ type: "human" }) });
    const r = await request("POST", "/v1/games", { ...json, authorization: `Bearer ${apiKey}` }, body);
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
    const created = JSON.parse(r.text);
    return { id: created.id, tokens: created.seats.map((s) => s.token), kept: new Map() };
  }

  // One game to its end (or to the end of the run): resolves once its sockets are closed.
  function playGame(game) {
    return new Promise((resolve) => {
      const sockets = [];
      let over = false;
      let open = 4;
      const stop = setTimeout(() => finish(false), Math.max(0, end - performance.now()));
      function finish(done) {
        if (over) return;
        over = true;
        clearTimeout(stop);
        if (done) finished += 1;
        for (const ws of sockets) ws.close(1000);
      }
      game.tokens.forEach((token, seat) => {
        // inFlight: the act awaiting its answer; moved: the last act, until a newer view.
        const me = { view: null, acted: -1, inFlight: null, moved: null };
        const opened = performance.now();
        const ws = new WebSocket(`${wsBase}/v1/games/${game.id}/play`, {
          headers: { authorization: `Bearer ${token}` },
          perMessageDeflate: deflate,
        });
        sockets.push(ws);
        function maybeAct() {
          if (over || me.inFlight || !me.view || me.view.version <= me.acted) return;
          if (performance.now() >= end) return finish(false);
          const action = me.view.awaiting.find((a) => a.seat === me.view.you);
          if (!action) return;
          const { type, body } = actFor(me.view, action, game);
          const ref = String((refs += 1));
          me.acted = me.view.version;
          me.inFlight = { ref, sent: performance.now(), version: me.view.version };
          me.moved = me.inFlight;
          ws.send(JSON.stringify({ type, ref, body }));
        }
        ws.on("open", () => {
          const ext = ws.extensions || "none";
          extensions[ext] = (extensions[ext] ?? 0) + 1;
        });
        ws.on("message", (data) => {
          const frame = JSON.parse(data);
          if (frame.type === "view") {
            views += 1;
            if (me.view === null) openLatencies.push(performance.now() - opened);
            else if (frame.version <= me.view.version) older += 1;
            me.view = frame.view;
            const moved = me.moved;
            if (moved && frame.version > moved.version) {
              viewLatencies.push(performance.now() - moved.sent);
              me.moved = null;
            }
            if (frame.view.status !== "active") return finish(true);
            maybeAct();
          } else if (frame.type === "answer" || frame.type === "problem") {
            const sent = me.inFlight;
            if (!sent || frame.ref !== sent.ref) { count(`${frame.type} to an unknown ref`); return; }
            me.inFlight = null;
            if (frame.type === "answer") {
              acts += 1;
              actLatencies.push(performance.now() - sent.sent);
              // A view older than the act's own version was made before the act: it may
              // still await this seat for what it just did (a commitment, say).
              me.acted = Math.max(me.acted, frame.body.version - 1);
            } else {
              errors += 1;
              count(`act ${frame.status} ${frame.body?.type ?? ""}`);
            }
            maybeAct();
          }
        });
        ws.on("error", (err) => {
          if (!over) { errors += 1; count(`socket error ${err.message}`); }
        });
        ws.on("close", (code) => {
          if (!over) { errors += 1; count(`closed ${code}`); finish(false); }
          open -= 1;
          if (open === 0) resolve();
        });
      });
    });
  }

  async function table() {
    while (performance.now() < end) await playGame(await newGame());
  }

  const started = performance.now();
  await Promise.all(Array.from({ length: games }, table));
  const elapsed = (performance.now() - started) / 1000;
  const act = summary(actLatencies);
  const viewed = summary(viewLatencies);
  const opening = summary(openLatencies);
  return {
    acts_per_s: acts / elapsed,
    gets_per_s: 0,
    views_per_s: views / elapsed,
    act_p50_ms: act.p50_ms,
    act_p99_ms: act.p99_ms,
    loop_p50_ms: viewed.p50_ms,
    loop_p99_ms: viewed.p99_ms,
    open_p50_ms: opening.p50_ms,
    open_p99_ms: opening.p99_ms,
    games_finished: finished,
    older_views: older,
    extensions,
    errors,
    failures,
  };
}

let result;
if (mode === "healthz") {
  result = await healthz(Number(rest[0]), Number(rest[1]), rest[2]);
} else if (mode === "play") {
  result = await play(rest[0], Number(rest[1]), Number(rest[2]), rest[3], rest[4], rest[5]);
} else {
  throw new Error(`unknown mode ${mode}`);
}
await pool.close();
console.log(JSON.stringify(result));
