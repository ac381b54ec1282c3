// Every game kind played to the end with sealed steps, a live seat, two SDK seats against
// each other, a reveal mismatch, the sealed scheme's canonical JSON.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RevealMismatch, bot, canonicalJson, commitment, human, preimage } from "../index.js";
import { TABLES, client, playToTheEnd, seeded } from "./support.js";

for (const [kind, table] of Object.entries(TABLES)) {
  test(`a seat plays ${kind} to the end`, async () => {
    const api = client();
    const bots = Array.from({ length: table.seats - 1 }, () => bot("random"));
    const game = await api.createGame(kind, { seats: [human("Ann"), ...bots], options: table.options });
    const seat = game.seat(0);
    const actions = await playToTheEnd(seat, seeded(7));
    const final = await seat.view();
    assert.equal(final.status, "finished");
    assert.deepEqual(final.awaiting, []);
    assert.equal(final.result?.scores.length, table.seats);
    assert.equal(seat.pending, null);
    if (kind !== "bonnie_clyde") {
      // Sealed steps: each commit was revealed by play().
      assert.ok(actions.commit > 0, "sealed steps were played");
      let revealed = 0;
      for await (const record of seat.events()) {
        if (record.event.type === "seal.revealed" && record.event.seat === 0) revealed++;
      }
      assert.equal(revealed, actions.commit);
    }
    assert.equal(await seat.waitForTurn({ timeoutMs: 5000 }), null);
  });
}

test("a live seat awaits its turns on the view feed, about one request an act", async () => {
  const api = client();
  const game = await api.createGame("fbi", { seats: [human(), bot()] });
  const seat = game.seat(0, { live: true });
  const actions = await playToTheEnd(seat, seeded(11));
  assert.ok(seat.live, "the feed did not end under it");
  const acts = actions.move + 2 * actions.commit + actions.reveal;
  // One feed for the game: the acts and a few more (the creation, the feed's opening),
  // never one per change of the game.
  assert.ok(api.requests <= acts + 5, `${api.requests} requests for ${acts} acts`);
  await seat.close();
  assert.equal((await seat.view()).status, "finished");
});

test("two SDK seats play a sealed game against each other", async () => {
  const api = client();
  const game = await api.createGame("fbi", { seats: [human(), human()] });
  const [a, b] = await Promise.all([playToTheEnd(game.seat(0), seeded(1)), playToTheEnd(game.seat(1), seeded(2))]);
  assert.equal((await game.waitUntilOver()).status, "finished");
  assert.ok(a.commit > 0);
  assert.equal(a.commit, b.commit);
});

test("a reveal that does not match throws RevealMismatch with the server's preimage", async () => {
  const api = client();
  const game = await api.createGame("feds", { seats: [human(), bot()] });
  const seat = game.seat(0);
  const turn = await seat.waitForTurn();
  assert.equal(turn?.action, "commit");
  await seat.commit(turn!.legal[0]);
  const kept = seat.pending!;
  assert.equal((await seat.waitForTurn())?.action, "reveal");
  const other = turn!.legal[1];
  await assert.rejects(seat.reveal(other, kept.salt), (error: unknown) => {
    assert.ok(error instanceof RevealMismatch);
    assert.equal(error.status, 422);
    assert.equal(error.type, "urn:stakeout:problem:reveal-mismatch");
    assert.equal(error.code, "reveal-mismatch");
    assert.equal(error.preimage, preimage({ ...kept, move: other }));
    assert.equal(error.fields.preimage, error.preimage);
    return true;
  });
  // Nothing changed, and the kept choice still reveals.
  assert.deepEqual(seat.pending, kept);
  const accepted = await seat.reveal();
  assert.equal(accepted.events[0].event.type, "seal.revealed");
  assert.equal(seat.pending, null);
});

test("canonical JSON sorts keys at every level, without spaces; the commitment is its SHA-256", async () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, "x"], c: null } }), '{"a":{"c":null,"d":[1,"x"]},"b":1}');
  const choice = { gameId: "g", step: "s", seat: 0, move: { type: "x" }, salt: "00" };
  // SHA-256 of 'sealed-v1|g|s|0|{"type":"x"}|00', as Python's hashlib computes it.
  assert.equal(preimage(choice), 'sealed-v1|g|s|0|{"type":"x"}|00');
  assert.equal(await commitment(choice), "8e425c5a68275c1f5e59f09306f557b90492d164b35a7bb097c8c4a583206490");
});
