// Clocks counted from server_time_ms, presence in views and as the feeds' own messages, and
// the account feed resumed from a cursor.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bot, clockAt, human, type AccountFeedMessage, type EventFeedMessage } from "../index.js";
import { Reader, client, firstOf } from "./support.js";

test("a seat's clock counts down from the view's server_time_ms", async () => {
  const api = client();
  const game = await api.createGame("fbi", {
    seats: [human(), bot()],
    clock: { initial_seconds: 300, increment_seconds: 0, on_time_out: "bot_seat" },
  });
  const seat = game.seat(0);
  const turn = await seat.waitForTurn(); // the seat awaited: its clock runs
  assert.ok(turn);
  const view = turn.view;
  assert.ok(view.server_time_ms > 0);
  const clock = view.seats[0].clock!;
  assert.ok(clock.running, "an awaited seat's clock runs");
  assert.ok(clock.remaining_ms <= 300_000 && clock.remaining_ms > 200_000, String(clock.remaining_ms));
  // By the server's clock: a second after the view, a second less; never below zero.
  assert.equal(clockAt(view, 0, view.server_time_ms + 1000)!.remainingMs, clock.remaining_ms - 1000);
  assert.equal(clockAt(view, 0, view.server_time_ms + 10_000_000)!.remainingMs, 0);
  assert.equal(clockAt(view, 0)!.flagAtMs, view.server_time_ms + clock.remaining_ms);
  assert.equal(clockAt(view, 1)?.running ?? false, false); // a bot's seat: no running clock
  const now = seat.clock()!;
  assert.ok(now.remainingMs <= clock.remaining_ms);
  assert.ok(seat.serverNowMs()! >= view.server_time_ms);
  // The deadline the server shows is the flag's fall by the same clock.
  assert.equal(view.awaiting.find((a) => a.seat === 0)?.deadline, view.server_time_ms + clock.remaining_ms);
  await game.abort();
});

test("presence is in the views and comes as its own message on the feeds", async () => {
  const api = client();
  const game = await api.createGame("fbi", { seats: [human(), human()] });
  const watch = new Reader(game.stream("events"));
  // The feed is open (its backlog came) before anyone is seen.
  await watch.first((m) => m.kind === "event", 30_000, "the first event");
  const ann = game.seat(0);
  await ann.view(); // seat 0 seen; seat 1 never yet
  assert.equal(ann.presence(0)?.status, "online");
  assert.equal(ann.presence(1)?.status, "never");
  const bo = game.seat(1);
  const online = (m: EventFeedMessage) =>
    m.kind === "presence" && m.seats.find((s) => s.seat === 1)?.presence?.status === "online";
  const told = watch.first(online, 30_000, "seat 1 online");
  await bo.view();
  const message = await told;
  assert.equal(message.kind, "presence");
  if (message.kind === "presence") assert.deepEqual(message.seats.map((s) => s.seat), [0, 1]);
  await watch.close();
  await game.abort();
});

test("the account feed gives the key's notifications and resumes from a cursor", async () => {
  const api = client();
  const feed = new Reader(api.feed());
  // The feed is recorded from its first opening: probe games until one shows up in it.
  let started: AccountFeedMessage | undefined;
  let gameId = "";
  for (let i = 0; i < 20 && !started; i++) {
    gameId = (await api.createGame("fbi", { seats: [bot(), bot()] })).id;
    const wanted = (m: AccountFeedMessage) => m.kind === "game.started" && m.game_id === gameId;
    started = await feed.first(wanted, 3000, "game.started").catch(() => undefined);
  }
  assert.ok(started, "the account feed never started");
  assert.equal(typeof started.cursor, "string");
  await feed.close();
  // Resuming from that cursor gives what followed it (the bots' game goes on), nothing before.
  const resumed = api.feed({ after: started.cursor });
  const after = await firstOf(resumed, (m) => m.game_id === gameId, 60_000, "a later notification");
  assert.notEqual(after.cursor, started.cursor);
  assert.notEqual(after.kind, "game.started");
  await resumed.return(undefined);
});
