// The replay page: /web/replay.html#<game id>. Steps through a game that is over (first,
// previous, next, last, a slider, the arrow keys), says each event in words as the seat
// chosen in "Seen by" saw it, draws the table as it stood after that event
// (GET /v1/games/{id}/replay/{version}), and verifies the replay in the page (seed and
// sealed reveals against their commitments). A game still being played is said so, with
// the way to its live table.

import { api, Problem } from "./api.js";
import { $, h, fill, pageUrl, pageFailed } from "./dom.js";
import { rendererFor, describe } from "./render.js";
import * as storage from "./storage.js";
import { verifyReplay } from "./verify.js";

const gameId = decodeURIComponent(location.hash.slice(1)).split("/")[0];
const held = storage.seats.pick(gameId, null);
let auth = held ? held.token : storage.apiKey.get() || null;

let replay = null;
let renderer = null;
let rules = null;
let finalView = null;
let at = 1;
let dealt = 1; // the event at which the table is laid out (the opening act's last)
let seat = held ? String(held.seat) : "";
const views = new Map();

const ui = {
  error: $("#error"),
  badge: $("#badge"),
  result: $("#result"),
  checks: $("#checks"),
  slider: $("#slider"),
  position: $("#position"),
  now: $("#event-now"),
  table: $("#table"),
  list: $("#event-list"),
  seat: $("#seat-view"),
};

const FAILED = "This replay cannot be shown";

function showError(error) {
  ui.error.hidden = !error;
  fill(ui.error, error ? (error instanceof Problem ? error.words : String(error)) : "");
}

/** The final view as the chosen seat sees it: "you" is that seat, or nobody for a spectator. */
function seenBy() {
  return { ...finalView, you: seat === "" ? null : Number(seat) };
}

async function viewAt(version) {
  const key = `${seat}|${version}`;
  if (!views.has(key)) {
    const query = seat === "" ? "" : `?seat=${seat}`;
    views.set(key, api(`/v1/games/${gameId}/replay/${version}${query}`, { auth }));
  }
  return views.get(key);
}

/**
 * The events of the opening act (the deal) come in one batch, and the server answers the
 * table of the whole batch for each of them: the page opens at the batch's last event, the
 * table as dealt, and an earlier one says where the table is laid out rather than show it.
 */
function beforeTheDeal(view) {
  fill(
    ui.table,
    h(
      "div",
      { class: "panel setup", "data-setup": view.version },
      h("p", {}, `Events 1 to ${view.version} are the deal, all at once: the table as dealt is at event ${view.version}.`),
      h("button", { type: "button", onclick: () => go(view.version) }, `Show the table as dealt (event ${view.version})`),
    ),
  );
}

async function go(version) {
  at = Math.min(Math.max(1, version), replay.events.length);
  ui.slider.value = String(at);
  fill(ui.position, `Event ${at} of ${replay.events.length}${at === dealt ? " · as dealt" : ""}`);
  fill(ui.now, describe(renderer, replay.events[at - 1], seenBy()));
  for (const item of ui.list.querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
  const current = ui.list.children[at - 1];
  if (current) {
    current.setAttribute("aria-current", "step");
    current.scrollIntoView({ block: "nearest" });
  }
  $("#first").disabled = $("#prev").disabled = at === 1;
  $("#last").disabled = $("#next").disabled = at === replay.events.length;
  const wanted = at;
  try {
    const view = await viewAt(wanted);
    if (wanted !== at) return; // stepped on meanwhile
    if (view.version > wanted) beforeTheDeal(view);
    else renderer.renderTable(ui.table, { view, rules, act: async () => {}, mode: "replay" });
    document.body.dataset.at = String(at);
  } catch (error) {
    showError(error);
  }
}

function seatName(i) {
  const info = finalView.seats[i];
  return (info && info.name) || `Seat ${i}`;
}

function drawEvents() {
  const view = seenBy();
  fill(
    ui.list,
    replay.events.map((record) => h("li", {}, h("button", { type: "button", class: "link", onclick: () => go(record.version) }, describe(renderer, record, view)))),
  );
}

/** Not over yet: no replay (the seed stays secret until the end); the live table instead. */
async function stillPlaying() {
  const game = await api(`/v1/games/${gameId}`, { auth }).catch(() => null);
  const title = game ? (await api(`/v1/rules/${game.game}`).catch(() => ({ title: game.game }))).title : "";
  if (title) fill($("#title"), `Replay: ${title}`);
  ui.badge.textContent = "still being played";
  ui.badge.dataset.verified = "not-over";
  for (const id of ["#stepper", "#table", "#every-event"]) $(id).hidden = true;
  const table = held ? `${gameId}/${held.seat}` : `${gameId}/watch`;
  fill(ui.result, "This game is still being played: its replay opens when it ends.");
  ui.checks.hidden = true;
  $("#links").prepend(h("a", { href: pageUrl("table.html", table), "data-live": "" }, held ? "Back to the table" : "Watch it live"), " ");
}

async function load() {
  const read = () => Promise.all([api(`/v1/games/${gameId}/replay`, { auth }), api(`/v1/games/${gameId}`, { auth })]);
  try {
    return await read();
  } catch (error) {
    // A stored API key this server does not know (another run's): read as anyone.
    if (held || !auth || error.status !== 401) throw error;
    auth = null;
    return read();
  }
}

async function verify() {
  const verdict = await verifyReplay(replay);
  ui.badge.textContent = verdict.ok ? "✔ verified" : "✘ not verified";
  ui.badge.className = `badge ${verdict.ok ? "ok" : "bad"}`;
  ui.badge.dataset.verified = String(verdict.ok);
  fill(ui.checks, verdict.checks.map((c) => h("li", { class: c.ok ? "ok" : "bad" }, `${c.ok ? "✔" : "✘"} ${c.text}`)));
}

function wireControls() {
  ui.seat.addEventListener("change", () => {
    seat = ui.seat.value;
    drawEvents();
    go(at);
  });
  ui.slider.max = String(replay.events.length);
  ui.slider.addEventListener("input", () => go(Number(ui.slider.value)));
  $("#first").addEventListener("click", () => go(1));
  $("#prev").addEventListener("click", () => go(at - 1));
  $("#next").addEventListener("click", () => go(at + 1));
  $("#last").addEventListener("click", () => go(replay.events.length));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") go(at + 1);
    if (event.key === "ArrowLeft") go(at - 1);
  });
}

async function main() {
  if (!/^[0-9a-f]{24}$/.test(gameId || "")) {
    ui.badge.textContent = "no game";
    return pageFailed(FAILED, "This address names no game: a replay's address ends in #<game id> (24 hex digits), as the lobby and the table link it.");
  }
  try {
    [replay, finalView] = await load();
    [renderer, rules] = await Promise.all([rendererFor(replay.game), api(`/v1/rules/${replay.game}`)]);
  } catch (error) {
    if (error instanceof Problem && error.code === "game-not-finished") return stillPlaying();
    ui.badge.textContent = "not checked";
    const words = error instanceof Problem && error.status === 404 ? `There is no game ${gameId} on this server: check the address you were given.` : error instanceof Problem ? error.words : String(error);
    return pageFailed(FAILED, words);
  }
  document.title = `Replay of ${rules.title} · stakeout`;
  fill($("#title"), `Replay: ${rules.title}`);
  if (finalView.result) {
    const winners = finalView.result.winners.map(seatName).join(" and ");
    fill(ui.result, h("strong", {}, `Won by ${winners}.`), " Scores: ", finalView.result.scores.map((s, i) => `${seatName(i)} ${s}`).join(", "));
  } else {
    fill(ui.result, `The game ended without a result (${finalView.status}).`);
  }
  fill(
    ui.seat,
    h("option", { value: "" }, "a spectator"),
    finalView.seats.map((info) => h("option", { value: String(info.seat), selected: String(info.seat) === seat }, seatName(info.seat))),
  );
  drawEvents();
  wireControls();
  // Opened at the deal, as dealt: its first events have no table of their own.
  dealt = await viewAt(1).then((view) => Math.min(view.version, replay.events.length), () => 1);
  go(dealt);
  verify();
}

// Another game's replay in this tab (#A to #B): start again with B.
window.addEventListener("hashchange", () => location.reload());
main();
