// Pages, tickets, players and leaderboards, webhooks with their signatures.
import assert from "node:assert/strict";
import http from "node:http";
import { test } from "node:test";
import { bot, collect, human, openSeat, verifySignature, sign } from "../index.js";
import { client, playToTheEnd, seeded, waitFor } from "./support.js";

// The server reads a key's webhooks at most once a second per process (HOOKS_TTL_SECONDS in
// service/follow_ups): a game started in that second after the registration may be missed.
// So games are made until one's game.started is delivered.
test("webhooks are signed, and verifySignature checks them", async () => {
  const got: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      got.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const api = client();
  try {
    const hook = await api.registerWebhook(url, ["game.started"]);
    assert.ok((await api.webhooks()).some((h) => h.id === hook.id));
    let delivery: (typeof got)[number] | undefined;
    for (let i = 0; i < 20 && !delivery; i++) {
      const game = await api.createGame("fbi", { seats: [human(), bot()] });
      delivery = await waitFor(async () => got.find((d) => d.body.includes(game.id)), 5000, "a delivery").catch(() => undefined);
    }
    if (!delivery) throw new Error(`no delivery; attempts ${JSON.stringify(await collect(api.deliveries(hook.id)))}`);
    const signature = String(delivery.headers["stakeout-signature"]);
    assert.ok(await verifySignature(hook.secret, signature, delivery.body));
    assert.ok(await verifySignature(hook.secret, signature, delivery.body.toString("utf8")));
    assert.equal(await verifySignature(hook.secret, signature, Buffer.concat([delivery.body, Buffer.from(" ")])), false);
    assert.equal(await verifySignature("another-secret", signature, delivery.body), false);
    assert.equal(await verifySignature(hook.secret, signature, delivery.body, { nowSeconds: Date.now() / 1000 + 3600 }), false);
    assert.equal(await verifySignature(hook.secret, "garbage", delivery.body), false);
    assert.equal(await sign(hook.secret, delivery.body, Number(signature.split(",")[0].slice(2))), signature);
    const attempts = await waitFor(async () => (await collect(api.deliveries(hook.id, { limit: 1 }))).length > 0, 30_000, "an attempt listed");
    assert.ok(attempts);
    await api.deleteWebhook(hook.id);
    assert.ok(!(await api.webhooks()).some((h) => h.id === hook.id));
  } finally {
    receiver.close();
  }
});

test("pages are followed to the end", async () => {
  const api = client();
  const made = new Set<string>();
  for (let i = 0; i < 5; i++) made.add((await api.createGame("fbi", { seats: [human(), bot()], public: true })).id);
  const before = api.requests;
  const listed = (await collect(api.games({ limit: 2 }))).map((g) => g.id);
  for (const id of made) assert.ok(listed.includes(id), id);
  assert.equal(new Set(listed).size, listed.length, "nothing twice across pages");
  const pages = api.requests - before;
  assert.ok(pages >= Math.ceil(listed.length / 2) && pages <= Math.ceil(listed.length / 2) + 1, `${pages} pages`);
  const lobby = new Set((await collect(api.lobby({ game: "fbi", limit: 2 }))).map((g) => g.id));
  for (const id of made) assert.ok(lobby.has(id), id);
  const game = api.game([...made][0]);
  const small = (await collect(game.events({ limit: 3 }))).map((e) => e.version);
  assert.ok(small.length > 3);
  assert.deepEqual(small, Array.from({ length: small.length }, (_, i) => i + 1));
  assert.deepEqual(small, (await collect(game.events({ limit: 500 }))).map((e) => e.version));
});

test("an invite is claimed and a rematch given", async () => {
  const api = client();
  const game = await api.createGame("bonnie_clyde", { seats: [human("Ann"), openSeat()], options: { target: 10 } });
  const code = game.invite(1);
  assert.equal((await api.invite(code)).seat, 1);
  const bo = await api.claimInvite(code, { name: "Bo" });
  await Promise.all([playToTheEnd(game.seat(0), seeded(1)), playToTheEnd(bo, seeded(2))]);
  assert.equal((await game.waitUntilOver()).status, "finished");
  const again = await bo.rematch();
  assert.notEqual(again.gameId, game.id);
  assert.equal((await again.view()).id, again.gameId);
});

test("tickets match, and players and leaderboards show the game", async () => {
  const api = client();
  const tag = `ts-${Date.now().toString(36)}`;
  const tickets = await Promise.all(
    ["cy", "di"].map((who) => api.createTicket("fbi", [2], { player: { external_id: `${tag}-${who}`, name: who } })),
  );
  assert.ok(tickets.every((t) => t.secret.startsWith("mmt_")));
  const [cy, di] = await Promise.all(tickets.map((t) => t.waitForMatch({ timeoutMs: 60_000 })));
  assert.equal(cy.gameId, di.gameId);
  await di.resign();
  await playToTheEnd(cy, seeded(3));
  const profile = await waitFor(async () => {
    const p = await api.player(`${tag}-cy`);
    return p.ratings.length > 0 && p;
  }, 60_000, "a rating");
  assert.equal(profile.external_id, `${tag}-cy`);
  const board = await collect(api.leaderboard("fbi", { around: `${tag}-cy`, limit: 5 }), 50);
  assert.ok(board.some((e) => e.external_id === `${tag}-cy`));
  const games = await collect(api.playerGames(`${tag}-cy`, { limit: 1 }));
  assert.ok(games.some((g) => g.id === cy.gameId));
});
