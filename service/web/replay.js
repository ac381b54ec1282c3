// The replay page: /web/replay.html#<game id>. Steps through a game that is over (first,
// previous, next, last, a slider, the arrow keys), says each event in words, draws the
// table as it stood after that event (GET /v1/games/{id}/replay/{version}), and verifies
// the replay in the page (seed and sealed reveals against their commitments).

import { api, Problem } from "./api.js";
import { $, h, fill } from "./dom.js";
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

function showError(error) {
  ui.error.hidden = !error;
  fill(ui.error, error ? (error instanceof Problem ? error.words : String(error)) : "");
}

async function viewAt(version) {
  const key = `${seat}|${version}`;
  if (!views.has(key)) {
    const query = seat === "" ? "" : `?seat=${seat}`;
    views.set(key, api(`/v1/games/${gameId}/replay/${version}${query}`, { auth }));
  }
  return views.get(key);
}

async function go(version) {
  at = Math.min(Math.max(1, version), replay.events.length);
  ui.slider.value = String(at);
  fill(ui.position, `Event ${at} of ${replay.events.length}`);
  const record = replay.events[at - 1];
  fill(ui.now, describe(renderer, record, finalView));
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
    renderer.renderTable(ui.table, { view, rules, act: async () => {}, mode: "replay" });
    document.body.dataset.at = String(at);
  } catch (error) {
    showError(error);
  }
}

function seatName(i) {
  const info = finalView.seats[i];
  return (info && info.name) || `Seat ${i}`;
}

async function main() {
  if (!/^[0-9a-f]{24}$/.test(gameId || "")) return showError("no game: the address should end in #<game id>.");
  try {
    const load = () => Promise.all([api(`/v1/games/${gameId}/replay`, { auth }), api(`/v1/games/${gameId}`, { auth })]);
    try {
      [replay, finalView] = await load();
    } catch (error) {
      // A stored API key this server does not know (another run's): read as anyone.
      if (held || !auth || error.status !== 401) throw error;
      auth = null;
      [replay, finalView] = await load();
    }
    [renderer, rules] = await Promise.all([rendererFor(replay.game), api(`/v1/rules/${replay.game}`)]);
  } catch (error) {
    return showError(error);
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
  ui.seat.addEventListener("change", () => {
    seat = ui.seat.value;
    go(at);
  });
  fill(
    ui.list,
    replay.events.map((record) => h("li", {}, h("button", { type: "button", class: "link", onclick: () => go(record.version) }, describe(renderer, record, finalView)))),
  );
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
  go(1);

  const verdict = await verifyReplay(replay);
  ui.badge.textContent = verdict.ok ? "✔ verified" : "✘ not verified";
  ui.badge.className = `badge ${verdict.ok ? "ok" : "bad"}`;
  ui.badge.dataset.verified = String(verdict.ok);
  fill(ui.checks, verdict.checks.map((c) => h("li", { class: c.ok ? "ok" : "bad" }, `${c.ok ? "✔" : "✘"} ${c.text}`)));
}

main();
