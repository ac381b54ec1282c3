// bench/client_requests.py's TypeScript client: plays GAMES games of KIND, one human seat
// against bots, taking the first legal move; prints {"acts": N, "requests": M} as JSON.
//   node dist/bench/requests.js BASE_URL API_KEY KIND GAMES BOTS [OPTIONS_JSON]
import { Stakeout, bot, human } from "../index.js";

const [baseUrl, apiKey, kind, games, bots, options] = process.argv.slice(2);
let acts = 0;
let requests = 0;
for (let i = 0; i < Number(games); i++) {
  const api = new Stakeout({ baseUrl, apiKey });
  const others = Array.from({ length: Number(bots) }, () => bot("random"));
  const game = await api.createGame(kind, { seats: [human(), ...others], options: JSON.parse(options ?? "{}") });
  const seat = game.seat(0);
  const start = api.requests;
  for (let turn = await seat.waitForTurn({ timeoutMs: 60_000 }); turn; turn = await seat.waitForTurn({ timeoutMs: 60_000 })) {
    await seat.play(turn.legal[0]);
    acts += turn.action === "commit" ? 2 : 1;
  }
  requests += api.requests - start;
}
console.log(JSON.stringify({ acts, requests }));
