// A game's leaderboard (/web/leaderboard.html#<game>): the API key's players and bot levels
// by rating, page by page, or the page around one player.

import { api } from "./api.js";
import { $, h, fill } from "./dom.js";
import * as storage from "./storage.js";

const ui = {
  error: $("#error"),
  title: $("#title"),
  form: $("#board-form"),
  game: $("#board-game"),
  around: $("#board-around"),
  top: $("#board-top"),
  board: $("#board"),
  next: $("#board-next"),
};
const titles = new Map();
let next = null;

function showError(error) {
  ui.error.hidden = !error;
  fill(ui.error, error ? (error.words || String(error)) : "");
}

function who(entry) {
  if (entry.bot) return `Bot (${entry.bot})`;
  return entry.name ? `${entry.name} (${entry.external_id})` : entry.external_id;
}

function row(entry, me) {
  const mine = me && entry.external_id === me;
  return h(
    "tr",
    { "data-rank": entry.rank, "aria-current": mine ? "true" : null, class: mine ? "me" : null },
    h("td", { class: "rank" }, entry.rank),
    h("td", { class: "who" }, who(entry)),
    h("td", { class: "num" }, entry.rating, entry.provisional ? h("span", { class: "hint", title: "provisional: fewer than ten rated games" }, " ?") : null),
    h("td", { class: "num" }, entry.games),
    h("td", { class: "num" }, entry.wins),
  );
}

function table(page, me) {
  if (!page.entries.length) return h("p", { class: "hint" }, "Nobody is rated in this game yet: ratings come with finished games.");
  return h(
    "table",
    { class: "board" },
    h("thead", {}, h("tr", {}, ["Rank", "Player", "Rating", "Games", "Wins"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, page.entries.map((e) => row(e, me))),
  );
}

async function show({ cursor = null, around = null } = {}) {
  showError(null);
  const key = storage.apiKey.get();
  if (!key) return showError("Leaderboards belong to an API key: paste yours in the lobby first.");
  const game = ui.game.value;
  location.hash = game;
  fill(ui.title, `Leaderboard · ${titles.get(game) || game}`);
  const query = new URLSearchParams({ limit: "20" });
  if (cursor) query.set("cursor", cursor);
  if (around) query.set("around", around);
  try {
    const page = await api(`/v1/leaderboards/${game}?${query}`, { auth: key });
    fill(ui.board, h("p", { class: "hint" }, `${page.total} rated`), table(page, around || storage.player.get()));
    next = page.next_cursor;
    ui.next.hidden = !next;
  } catch (error) {
    showError(error);
  }
}

async function start() {
  try {
    const { games } = await api("/v1/rules");
    for (const game of games) titles.set(game, (await api(`/v1/rules/${game}`)).title);
    fill(ui.game, games.map((g) => h("option", { value: g }, titles.get(g))));
    const wanted = location.hash.slice(1);
    if (titles.has(wanted)) ui.game.value = wanted;
  } catch (error) {
    return showError(error);
  }
  ui.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const around = ui.around.value.trim();
    show(around ? { around } : {});
  });
  ui.game.addEventListener("change", () => show());
  ui.top.addEventListener("click", () => show());
  ui.next.addEventListener("click", () => show({ cursor: next }));
  show();
}

start();
