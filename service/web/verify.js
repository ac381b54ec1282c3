// Checks a replay in the browser: the seed against the commitment published when the game
// was created, and every sealed reveal against the commitment its seat made before.
// (Re-deriving every shuffle needs the rules: `stakeout verify replay.json` does that.)

import { commitment, fromHex, sha256 } from "./sealed.js";

/** -> {ok, checks: [{ok, text}]} */
export async function verifyReplay(replay) {
  const checks = [];
  const check = (ok, text) => checks.push({ ok, text });

  const versions = replay.events.map((r) => r.version);
  check(
    versions.every((v, i) => v === i + 1),
    `${versions.length} events, numbered 1 to ${versions.length} without a gap`,
  );

  const created = replay.events.length ? replay.events[0].event : {};
  const seedHash = /^[0-9a-f]{64}$/.test(replay.seed) ? await sha256(fromHex(replay.seed)) : "";
  check(
    seedHash === replay.seed_commitment && created.seed_commitment === replay.seed_commitment,
    "the seed hashes to the commitment published when the game was created",
  );

  const committed = new Map(); // "seat|step" -> the last commitment
  let reveals = 0;
  let bad = 0;
  for (const record of replay.events) {
    const event = record.event;
    if (event.type === "seal.committed") committed.set(`${event.seat}|${event.step}`, event.commitment);
    if (event.type === "seal.revealed") {
      reveals += 1;
      const expected = committed.get(`${event.seat}|${event.step}`);
      const actual = await commitment(replay.game_id, event.step, event.seat, event.move, event.salt);
      if (actual !== expected) {
        bad += 1;
        check(false, `version ${record.version}: seat ${event.seat}'s reveal does not match its commitment`);
      }
    }
  }
  if (reveals) check(bad === 0, `${reveals - bad} of ${reveals} sealed reveals match their commitments`);
  else check(true, "no sealed reveals to check in this game");
  return { ok: checks.every((c) => c.ok), checks };
}
