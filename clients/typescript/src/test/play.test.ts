// Against a real server: STAKEOUT_URL and STAKEOUT_API_KEY (tests/clients/test_typescript_client.py
// starts a `stakeout run` and runs `npm test` with them).
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProblemError, Stakeout, canonicalJson, preimage } from "../index.js";

const baseUrl = process.env.STAKEOUT_URL ?? "http://127.0.0.1:8000";
const apiKey = process.env.STAKEOUT_API_KEY;
const tables: Record<string, { seats: number; options: Record<string, unknown> }> = {
  fbi: { seats: 3, options: {} },
  feds: { seats: 3, options: {} },
  bonnie_clyde: { seats: 2, options: { target: 10 } },
};

for (const [kind, table] of Object.entries(tables)) {
  test(`a seat plays ${kind} to the end`, async () => {
    const api = new Stakeout({ baseUrl, apiKey });
    const bots = Array.from({ length: table.seats - 1 }, () => ({ type: "bot" as const, level: "random" }));
    const game = await api.createGame(kind, { seats: [{ type: "human" }, ...bots], options: table.options });
    const seat = game.seat(0);
    let commits = 0;
    for (let turn = await seat.waitForTurn({ timeoutMs: 60_000 }); turn; turn = await seat.waitForTurn({ timeoutMs: 60_000 })) {
      if (turn.action === "commit") commits++;
      await seat.play(turn.legal[0]);
    }
    const final = await seat.view();
    assert.equal(final.status, "finished");
    assert.deepEqual(final.awaiting, []);
    if (kind !== "bonnie_clyde") assert.ok(commits > 0, "sealed steps were played");
    assert.equal(seat.pending, null);
  });
}

test("a reveal that does not match raises with the server's preimage", async () => {
  const api = new Stakeout({ baseUrl, apiKey });
  const game = await api.createGame("feds", { seats: [{ type: "human" }, { type: "bot", level: "random" }] });
  const seat = game.seat(0);
  const turn = await seat.waitForTurn();
  assert.equal(turn?.action, "commit");
  // Commit to one move by hand (play() would reveal it), then reveal another.
  const { commitment } = await import("../index.js");
  const salt = "ab".repeat(16);
  const choice = { gameId: game.id, step: turn!.step, seat: 0, move: turn!.legal[0], salt };
  await seat.api.http.POST("/v1/games/{game_id}/commitments", {
    params: { path: { game_id: game.id } },
    body: { commitment: await commitment(choice) },
    headers: seat.api.auth(seat.token),
  });
  seat.pending = choice;
  assert.equal((await seat.waitForTurn())?.action, "reveal");
  const other = turn!.legal[1];
  await assert.rejects(seat.reveal(other, salt), (error: unknown) => {
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 422);
    assert.equal(error.code, "reveal-mismatch");
    assert.equal(error.preimage, preimage({ ...choice, move: other }));
    return true;
  });
  await seat.reveal();
});

test("canonical JSON sorts keys at every level, without spaces", () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, "x"], c: null } }), '{"a":{"c":null,"d":[1,"x"]},"b":1}');
});
