// Quick match in the lobby: a matchmaking ticket for this browser's player, waited on by
// polling the ticket with its secret (no connection stays open: a reload picks it up), and
// once matched a link to the seat at its table.

import { api } from "./api.js";
import { $, h, fill, pageUrl } from "./dom.js";
import * as storage from "./storage.js";

const ui = {
  form: $("#quick-match"),
  game: $("#qm-game"),
  player: $("#qm-player"),
  name: $("#qm-name"),
  seats: $("#qm-seats"),
  bots: $("#qm-bots"),
  find: $("#qm-find"),
  status: $("#qm-status"),
};
const rules = new Map(); // game -> GET /v1/rules/{game}
let polling = null;

function say(...children) {
  fill(ui.status, ...children);
}

function problemWords(error) {
  return error && error.words ? error.words : String(error);
}

function drawSeats() {
  const game = rules.get(ui.game.value);
  if (!game) return;
  const boxes = [];
  for (let n = game.min_seats; n <= game.max_seats; n++) {
    const box = h("input", { type: "checkbox", value: n, checked: true, "data-count": n });
    boxes.push(h("label", { class: "choice" }, box, ` ${n}`));
  }
  fill(ui.seats, boxes);
}

function chosenCounts() {
  return [...ui.seats.querySelectorAll("[data-count]")].filter((b) => b.checked).map((b) => Number(b.value));
}

function waiting(ticket) {
  const seconds = Math.max(0, Math.round((Date.now() - ticket.created_ms) / 1000));
  const counts = ticket.seats.join(", ");
  const bots = ticket.bots_after_seconds === null ? "people only" : `bots after ${ticket.bots_after_seconds} s`;
  say(
    h("p", { class: "status", "data-ticket": ticket.status }, `Looking for a table of ${counts} (${bots})… ${seconds} s`),
    h("p", {}, h("button", { type: "button", id: "qm-cancel", onclick: cancel }, "Stop looking")),
  );
}

function matched(ticket) {
  const { game_id: gameId, seat, token } = ticket.match;
  storage.seats.add(gameId, seat, token);
  const table = h("a", { href: pageUrl("table.html", `${gameId}/${seat}`), "data-quick-play": seat }, `Play seat ${seat}`);
  say(
    h("p", { class: "status", "data-ticket": "matched" }, "Found a table. ", table),
    h("p", { class: "hint" }, "Ratings: ", h("a", { href: `leaderboard.html#${ticket.game}` }, "the leaderboard")),
  );
}

function ended(ticket) {
  const words = {
    cancelled: "Stopped looking.",
    gone: "Stopped looking: this ticket was cancelled.",
    expired: "Nobody was found in time: try again.",
  };
  say(h("p", { class: "status", "data-ticket": ticket.status }, words[ticket.status] || ticket.status));
}

async function check() {
  const kept = storage.ticket.get();
  if (!kept) return;
  try {
    const ticket = await api(`/v1/matchmaking/tickets/${kept.id}`, { auth: kept.secret });
    if (ticket.status === "waiting" || ticket.status === "matching") {
      waiting(ticket);
      polling = setTimeout(check, 1000);
      return;
    }
    storage.ticket.set(null);
    ui.find.disabled = false;
    if (ticket.status === "matched") matched(ticket);
    else ended(ticket);
  } catch (error) {
    ui.find.disabled = false;
    if (error.status === 404) {
      // A cancelled ticket is gone (stopped from another tab, say): nothing to show but that.
      storage.ticket.set(null);
      return ended({ status: "gone" });
    }
    say(h("p", { class: "error" }, problemWords(error)));
  }
}

async function cancel() {
  const kept = storage.ticket.get();
  if (!kept) return;
  clearTimeout(polling);
  try {
    ended(await api(`/v1/matchmaking/tickets/${kept.id}`, { method: "DELETE", auth: kept.secret }));
    storage.ticket.set(null);
    ui.find.disabled = false;
  } catch (error) {
    if (error.status === 404) {
      // Already cancelled (and so gone), from another tab say.
      storage.ticket.set(null);
      ui.find.disabled = false;
      return ended({ status: "gone" });
    }
    check(); // matched meanwhile (409): the ticket stays, matched; show the table
  }
}

async function find(event) {
  event.preventDefault();
  const key = storage.apiKey.get();
  if (!key) return say(h("p", { class: "error" }, "A quick match needs an API key: paste yours above."));
  const playerId = ui.player.value.trim();
  storage.player.set(playerId);
  const body = { game: ui.game.value, player: { external_id: playerId }, seats: chosenCounts() };
  const name = ui.name.value.trim();
  if (name) body.player.name = name;
  const bots = ui.bots.value.trim();
  if (bots) body.bots_after_seconds = Number(bots);
  try {
    const ticket = await api("/v1/matchmaking/tickets", { method: "POST", auth: key, body });
    storage.ticket.set({ id: ticket.id, secret: ticket.secret, game: ticket.game });
    ui.find.disabled = true;
    waiting(ticket);
    polling = setTimeout(check, 1000);
  } catch (error) {
    say(h("p", { class: "error" }, problemWords(error)));
  }
}

async function start() {
  ui.player.value = storage.player.get() || `player-${Math.random().toString(36).slice(2, 8)}`;
  try {
    const { games } = await api("/v1/rules");
    for (const game of games) rules.set(game, await api(`/v1/rules/${game}`));
    fill(ui.game, games.map((g) => h("option", { value: g }, rules.get(g).title)));
    drawSeats();
  } catch (error) {
    say(h("p", { class: "error" }, problemWords(error)));
  }
  ui.game.addEventListener("change", drawSeats);
  ui.form.addEventListener("submit", find);
  if (storage.ticket.get()) {
    ui.find.disabled = true;
    check();
  }
}

start();
