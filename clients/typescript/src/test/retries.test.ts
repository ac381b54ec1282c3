// A retry after a killed connection (the same Idempotency-Key, one act), a 429 waited out as
// Retry-After says, and a live feed resumed from Last-Event-ID after its connection died.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RateLimited, bot, human, type EventFeedMessage, type Retry } from "../index.js";
import { DroppingProxy, client, firstOf, header, limitedUrl, playToTheEnd, seeded } from "./support.js";

test("an act whose answer was lost is retried with its key and applied once", async () => {
  const proxy = await new DroppingProxy(client().transport.baseUrl).start();
  try {
    const retries: Retry[] = [];
    const api = client({ baseUrl: proxy.url, onRetry: (r) => retries.push(r) });
    const game = await api.createGame("fbi", { seats: [human(), bot()] });
    const seat = game.seat(0);
    const turn = await seat.waitForTurn();
    assert.equal(turn?.action, "move");
    proxy.armed = "/moves";
    const accepted = await seat.play(turn!.legal.at(-1));
    const moves = proxy.requests.filter((r) => r.startsWith("POST ") && r.split("\r\n")[0].includes("/moves"));
    assert.equal(moves.length, 2, "the lost one and its retry");
    const key = header(moves[0], "Idempotency-Key");
    assert.ok(key);
    assert.equal(header(moves[1], "Idempotency-Key"), key);
    assert.deepEqual(retries.map((r) => r.status), [null]); // a lost connection, retried once
    assert.equal(retries[0].idempotencyKey, key);
    assert.equal(accepted.replayed, true); // the server's first answer, not a second act
    let released = 0;
    for await (const record of game.events()) {
      const event = record.event;
      if ((event.type === "fbi.card_released" || event.type === "fbi.nothing_released") && event.seat === 0) released++;
    }
    assert.equal(released, 1);
  } finally {
    await proxy.close();
  }
});

test("a 429 is waited out as Retry-After says", { skip: !limitedUrl && "needs STAKEOUT_LIMITED_URL" }, async () => {
  const retries: Retry[] = [];
  const api = client({ baseUrl: limitedUrl!, onRetry: (r) => retries.push(r) });
  for (let i = 0; i < 6; i++) await api.stats();
  const limited = retries.filter((r) => r.status === 429);
  assert.ok(limited.length > 0, "the limit was met");
  assert.ok(limited.every((r) => r.waitMs >= 1000 && r.waitMs <= 60_000), JSON.stringify(limited));
  assert.equal(api.requests, 6 + retries.length);
  const impatient = client({ baseUrl: limitedUrl!, maxRetries: 0 });
  await assert.rejects(
    (async () => {
      for (let i = 0; i < 10; i++) await impatient.stats();
    })(),
    (error: unknown) => {
      assert.ok(error instanceof RateLimited);
      assert.equal(error.code, "too-many-requests");
      assert.ok(error.retryAfter !== null && error.retryAfter >= 1);
      return true;
    },
  );
});

test("a game's event feed resumes from Last-Event-ID after its connection died", async () => {
  const direct = client();
  const proxy = await new DroppingProxy(direct.transport.baseUrl).start();
  try {
    const watcher = client({ baseUrl: proxy.url });
    const created = await direct.createGame("fbi", { seats: [human(), bot()] });
    const feed = watcher.game(created.id).stream("events");
    const playing = playToTheEnd(created.seat(0), seeded(5));
    const versions: number[] = [];
    const isEvent = (m: EventFeedMessage) => m.kind === "event";
    for (;;) {
      const message = await firstOf(feed, isEvent, 60_000, "an event");
      if (message.kind === "event") versions.push(message.version);
      if (versions.length === 4) proxy.cut(); // mid-game: the feed's connection dies
      if (message.kind === "event" && message.event.type === "game.result_recorded") break;
    }
    await playing;
    await feed.return(undefined);
    // Nothing missed, nothing twice, across the reopening.
    assert.deepEqual(versions, Array.from({ length: versions.length }, (_, i) => i + 1));
    const openings = proxy.requests.filter((r) => r.startsWith("GET ") && r.split("\r\n")[0].includes("/stream"));
    assert.ok(openings.length >= 2, `${openings.length} openings`);
    assert.equal(header(openings[0], "Last-Event-ID"), undefined);
    // Reopened after the last version it had read (the cut may have let a few more through).
    const resumedAfter = Number(header(openings[1], "Last-Event-ID"));
    assert.ok(resumedAfter >= 4 && versions.includes(resumedAfter), `resumed after ${resumedAfter}`);
  } finally {
    await proxy.close();
  }
});
