// The table page: /web/table.html#<game id> plays with a seat token this browser holds
// (#<game id>/<seat> picks one of several), or watches as a spectator (#<game id>/watch).
// The game itself is drawn by the game's renderer; this shell shows the seats, who is
// awaited, deadlines, each seat's time bank counting down (clock.js) and its presence
// (presence.js), the result and refused acts, does sealed steps (commit, keep, reveal),
// resigns a seat (asked twice) and keeps the view live through the view feed. A seat this
// browser holds no token for is watched, and the page says why.

import { api, Problem } from "./api.js";
import { ServerTime, bankNode, tick } from "./clock.js";
import { $, h, fill, seatLabel, countdown, pageUrl, pageFailed, points } from "./dom.js";
import { ViewFeed } from "./feed.js";
import { awayLine, merge, presenceDot } from "./presence.js";
import { rating } from "./ratings.js";
import { rendererFor, describe } from "./render.js";
import { commitment, newSalt } from "./sealed.js";
import * as storage from "./storage.js";

const [gameId, which] = decodeURIComponent(location.hash.slice(1)).split("/");
const wanted = which === undefined || which === "watch" || which === "" ? null : Number(which);
const picked = which === "watch" ? null : storage.seats.pick(gameId, wanted);
// A seat asked for by number is played only with its own token, never another seat's.
const held = picked && (wanted === null || picked.seat === wanted) ? picked : null;
const mode = held ? "play" : "watch";
const ENDED = ["finished", "aborted", "abandoned"];
// A spectator reads with the API key when this browser has one (the creator may watch its
// games that are not public); without, as anyone.
let auth = held ? held.token : storage.apiKey.get() || null;

let view = null;
let rules = null;
let renderer = null;
let busy = false;
let revealing = null;
const log = [];
let logged = 0; // the last version whose event is in the log
const serverTime = new ServerTime();

const ui = {
  title: $("#title"),
  feed: $("#feed-state"),
  status: $("#status"),
  error: $("#error"),
  seats: $("#seats"),
  table: $("#table"),
  log: $("#log-list"),
  links: $("#links"),
  notice: $("#notice"),
};

/** A refused act ("Not done: ..."), or with `act` false something else that went wrong. */
function showError(message, act = true) {
  if (!message) {
    ui.error.hidden = true;
    fill(ui.error);
    return;
  }
  fill(ui.error, act ? h("strong", {}, "Not done: ") : null, message);
  ui.error.hidden = false;
}

const FAILED = "This table cannot be shown";

/** The game could not be read: why, in words, and the way back (dom.js pageFailed); no
 * feed to tell of. */
function loadFailed(error) {
  ui.feed.hidden = true;
  if (typeof error === "string") return pageFailed(FAILED, error);
  if (error instanceof Problem && error.status === 404) {
    return pageFailed(FAILED, `There is no game ${gameId} on this server: check the address you were given (a table's address ends in #<game id>).`);
  }
  pageFailed(FAILED, error instanceof Problem ? error.words : String(error));
}

function mine(v = view) {
  if (!v || v.you === null || v.you === undefined) return null;
  return v.awaiting.find((a) => a.seat === v.you) || null;
}

function seatName(seat) {
  const info = view && view.seats[seat];
  if (view && seat === view.you) return "you";
  return (info && info.name) || `Seat ${seat}`;
}

function statusLine() {
  const ended = {
    finished: "Game over",
    aborted: "Aborted by its creator: no result",
    abandoned: "Abandoned: no result",
  }[view.status];
  if (ended) {
    if (!view.result) return h("p", { class: "status ended" }, ended);
    const winners = view.result.winners.map(seatName);
    return h("p", { class: "status ended", "data-result": "" }, `${ended}. `, h("strong", {}, winners.length ? `Won by ${winners.join(" and ")}.` : "No winner."), " Scores: ", view.result.scores.map((s, i) => `${seatName(i)} ${s}`).join(", "));
  }
  if (view.status === "waiting") return h("p", { class: "status" }, "Waiting for players: the game starts when every open seat is taken.");
  const me = mine() || (view.legal.length && storage.sealed.current(gameId, view.you) ? { action: "commit", step: storage.sealed.current(gameId, view.you) } : null);
  const others = view.awaiting.filter((a) => a.seat !== view.you).map((a) => seatName(a.seat));
  const parts = [];
  if (resigned()) parts.push(h("strong", {}, "You resigned: a bot plays your seat to the end."));
  if (me) {
    const kept = storage.sealed.get(gameId, view.you, me.step);
    parts.push(
      h(
        "strong",
        { class: "yours" },
        me.action === "move"
          ? "Your turn."
          : me.action === "commit"
            ? kept
              ? "Your sealed choice is committed (you may still change it until everyone has chosen)."
              : "Your turn: choose in secret; your choice stays sealed until everyone has chosen."
            : "Revealing your sealed choice…",
      ),
    );
  }
  if (others.length) parts.push(` Waiting for ${others.join(", ")}.`);
  // A seat with a clock shows its bank (the deadline is when it runs out): no second countdown.
  const first = me || view.awaiting[0] || {};
  const banked = view.seats[first.seat] && view.seats[first.seat].clock;
  if (first.deadline && !banked) parts.push(" ", h("span", { class: "deadline", "data-deadline": first.deadline }, `time left ${countdown(first.deadline, serverTime.now())}`));
  return h("p", { class: "status" }, parts.length ? parts : "…");
}

/** A game played to the end that changed no rating says why (the lobby said so too). */
function unratedLine() {
  if (view.status !== "finished") return null;
  const { rated, text } = rating(view.seats);
  return rated ? null : h("p", { class: "hint game-rated", "data-rated": "false" }, text);
}

function resigned() {
  return mode === "play" && Boolean(view.seats[view.you] && view.seats[view.you].resigned);
}

/** Resign, asked twice: the first click says what it does and offers the button that does it. */
function resignControl() {
  const place = h("span", { class: "confirm" });
  const ask = h("button", { type: "button", onclick: () => fill(place, confirmation) }, "Resign…");
  const confirmation = [
    h("span", {}, `Resign seat ${view.you}? A bot plays it for the rest of the game; you can still watch. `),
    h("button", { type: "button", class: "danger", onclick: resign }, "Resign the seat"),
    " ",
    h("button", { type: "button", onclick: () => fill(place, ask) }, "Keep playing"),
  ];
  return fill(place, ask);
}

function seatList() {
  const awaited = new Set(view.awaiting.map((a) => a.seat));
  return h(
    "ul",
    { class: "seats" },
    view.seats.map((info) => {
      const waitingOn = view.awaiting.find((a) => a.seat === info.seat);
      return h(
        "li",
        { class: `seat${awaited.has(info.seat) ? " awaited" : ""}${info.seat === view.you ? " you" : ""}`, "data-seat": info.seat },
        presenceDot(info.presence),
        h("span", { class: "seat-name" }, seatLabel(info, view.you)),
        waitingOn ? h("span", { class: "pill" }, { move: "to move", commit: "choosing", reveal: "revealing" }[waitingOn.action] || waitingOn.action) : null,
        // A bot's bank is never charged (nor shown; a resigned seat's is a bot's); once the
        // game is over no bank counts, nor shows.
        info.type === "human" && !ENDED.includes(view.status) ? bankNode(info.clock, view.server_time_ms) : null,
        view.result ? h("span", { class: "seat-score" }, `${points(view.result.scores[info.seat])}${view.result.winners.includes(info.seat) ? " · winner" : ""}`) : null,
      );
    }),
  );
}

/** The seats, their banks and who is away: also redrawn alone when presence changes. */
function drawSeats() {
  const away = view.seats.map((info) => awayLine(info, info.name || `Seat ${info.seat}`, info.seat === view.you));
  fill(ui.seats, seatList(), away);
  tick(serverTime.now(), initialBank(view), ui.seats);
}

/** A `presence` message of the feed: the dots and away lines now, not at the next view. */
function onPresence(message) {
  if (!view) return;
  view = merge(view, message);
  drawSeats();
}

function draw() {
  document.title = `${rules ? rules.title : view.game} · stakeout`;
  fill(ui.title, rules ? rules.title : view.game, " ", h("small", {}, mode === "play" ? `· seat ${view.you}` : "· watching"));
  fill(ui.status, statusLine(), unratedLine());
  drawSeats();
  ui.table.classList.toggle("busy", busy);
  try {
    renderer.renderTable(ui.table, { view, rules, act, mode });
  } catch (error) {
    console.error(error);
    showError(`The table could not be drawn (${error.message}).`, false);
  }
  const links = [h("a", { href: "./" }, "Lobby")];
  if (mode === "play") links.push(h("a", { href: pageUrl("table.html", `${gameId}/watch`) }, "Watch as a spectator"));
  if (["finished", "aborted"].includes(view.status)) links.push(h("a", { href: pageUrl("replay.html", gameId), "data-replay": "" }, "Replay and verify"));
  // A rematch: a seat asks for its seat there (the same answer however often it asks).
  if (view.rematch && view.rematch.game_id && mode === "play") {
    links.push(h("button", { type: "button", onclick: rematch }, "To the rematch"));
  } else if (view.rematch && view.rematch.game_id) {
    links.push(h("a", { href: pageUrl("table.html", `${view.rematch.game_id}/watch`) }, "To the rematch"));
  } else if (view.status === "finished" && mode === "play") {
    links.push(h("button", { type: "button", onclick: rematch }, "Rematch"));
  }
  if (view.status === "waiting" && mode === "play") links.push(h("button", { type: "button", onclick: leave }, "Leave this seat"));
  // Kept across redraws while it asks (a redraw would otherwise take the question away).
  if (view.status === "active" && mode === "play" && !resigned()) {
    if (!draw.resign || !draw.resign.isConnected) draw.resign = resignControl();
    links.push(draw.resign);
  }
  fill(ui.links, links);
  if (ENDED.includes(view.status)) onState("ended");
  document.body.dataset.status = view.status;
  document.body.dataset.version = view.version;
  // For the browser tests (and styles): what this seat is asked for now.
  const me = mine();
  document.body.dataset.awaitingMe = me ? me.action : view.legal.length ? "committed" : "";
}

async function apply(next) {
  if (view && next.version < view.version) return;
  view = next;
  serverTime.observe(view.server_time_ms);
  if (!renderer) {
    [renderer, rules] = await Promise.all([rendererFor(view.game), api(`/v1/rules/${view.game}`).catch(() => null)]);
  }
  draw();
  revealIfOpen();
  catchUpLog();
}

/** Events the feed did not bring (the first view, a resumed feed): read them once. */
async function catchUpLog() {
  if (!view || logged >= view.version || catchUpLog.running) return;
  catchUpLog.running = true;
  try {
    const after = Math.max(logged, view.version - 30);
    const page = await api(`/v1/games/${gameId}/events?after=${after}&limit=30`, { auth });
    onEvents(page.events);
  } catch {
    /* the log is a courtesy: the table is drawn from the view */
  } finally {
    catchUpLog.running = false;
  }
}

/** The renderer's act(move): a move, or a commitment when the step is sealed. */
async function act(move) {
  if (busy) return;
  // Committed already, still before the reveals: choosing again replaces the commitment.
  const recommit = storage.sealed.current(gameId, view.you);
  const me = mine() || (view.legal.length && recommit ? { action: "commit", step: recommit } : null);
  if (!me) {
    showError("It is not your turn.");
    draw();
    return;
  }
  busy = true;
  ui.table.classList.add("busy");
  showError(null);
  const base = `/v1/games/${gameId}`;
  const options = { method: "POST", auth, headers: { Prefer: "return=representation" } };
  try {
    let answer;
    if (me.action === "commit") {
      const salt = newSalt();
      const digest = await commitment(gameId, me.step, view.you, move, salt);
      // Kept before it is sent: a reload after the commit still finds it.
      storage.sealed.set(gameId, view.you, me.step, { move, salt, commitment: digest });
      answer = await api(`${base}/commitments`, { ...options, body: { commitment: digest, step: me.step } });
    } else if (me.action === "move") {
      answer = await api(`${base}/moves`, { ...options, body: move });
    } else {
      showError("Your sealed choice is being revealed; wait a moment.");
      return;
    }
    if (answer && answer.view) await apply(answer.view);
  } catch (error) {
    showError(error instanceof Problem ? error.words : String(error));
  } finally {
    busy = false;
    if (view) draw();
  }
}

/** The next game with the same seats (rotated): every seat's first call makes it, the
 * others' join it. */
async function rematch() {
  try {
    const next = await api(`/v1/games/${gameId}/rematch`, { method: "POST", auth });
    if (next.token) storage.seats.add(next.game_id, next.seat, next.token);
    location.assign(pageUrl("table.html", next.token ? `${next.game_id}/${next.seat}` : `${next.game_id}/watch`));
  } catch (error) {
    showError(error instanceof Problem ? error.words : String(error));
  }
}

/** Before the game starts: give the seat back (its invite works again). */
async function leave() {
  try {
    await api(`/v1/games/${gameId}/leave`, { method: "POST", auth });
    location.assign("./");
  } catch (error) {
    showError(error instanceof Problem ? error.words : String(error));
  }
}

/** For the rest of the game a bot plays the seat; the token still reads the seat's view. */
async function resign() {
  showError(null);
  try {
    const answer = await api(`/v1/games/${gameId}/resign`, { method: "POST", auth, headers: { Prefer: "return=representation" } });
    if (answer && answer.view) await apply(answer.view);
    else await apply(await api(`/v1/games/${gameId}`, { auth }));
  } catch (error) {
    showError(error instanceof Problem ? error.words : String(error));
  }
}

/** Reveals open (every seat has committed): reveal the kept move, once. */
async function revealIfOpen() {
  const me = mine();
  if (!me || me.action !== "reveal" || revealing === me.step) return;
  const kept = storage.sealed.get(gameId, view.you, me.step);
  if (!kept) {
    showError("Your sealed choice was made in another browser: it cannot be revealed here.");
    return;
  }
  revealing = me.step;
  try {
    const answer = await api(`/v1/games/${gameId}/reveals`, {
      method: "POST",
      auth,
      body: { move: kept.move, salt: kept.salt },
      headers: { Prefer: "return=representation" },
    });
    storage.sealed.drop(gameId, view.you, me.step);
    if (answer && answer.view) await apply(answer.view);
  } catch (error) {
    revealing = null;
    const extra = error.body && error.body.preimage ? ` (the server hashed ${error.body.preimage})` : "";
    showError((error instanceof Problem ? error.words : String(error)) + extra);
  }
}

function onEvents(records) {
  if (!renderer) return;
  records = records.filter((record) => record.version > logged);
  if (!records.length) return;
  logged = records[records.length - 1].version;
  for (const record of records) log.push(h("li", { "data-version": record.version }, describe(renderer, record, view)));
  while (log.length > 40) log.shift();
  fill(ui.log, [...log].reverse());
}

function onState(state) {
  // A feed still open on a game that is over is not "live": the game is over.
  if (view && ENDED.includes(view.status)) state = "ended";
  ui.feed.textContent = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", ended: "game over", refused: "no live feed" }[state] || state;
  ui.feed.dataset.state = state;
}

// Deadlines and banks, as of the server's time; four times a second, so a bank's second
// changes when the server's does, not up to a second late.
setInterval(() => {
  const now = serverTime.now();
  for (const node of document.querySelectorAll("[data-deadline]")) node.textContent = `time left ${countdown(Number(node.dataset.deadline), now)}`;
  tick(now, initialBank(view), ui.seats);
}, 250);

/** Watching, though a seat was asked for (or none said): why, and how to play instead. */
function watchingNotice() {
  if (mode !== "watch" || which === "watch") return;
  const seat = wanted === null ? "any seat of this game" : `seat ${wanted}`;
  fill(
    ui.notice,
    `You are watching: this browser holds no token for ${seat}. `,
    "A seat is played in the browser that took it (from the lobby, or with an invite link); the table's address alone only lets you watch.",
  );
  ui.notice.hidden = false;
}

async function main() {
  if (!/^[0-9a-f]{24}$/.test(gameId || "")) {
    loadFailed("This address names no game: a table's address ends in #<game id> (24 hex digits), as the lobby and invites link it.");
    return;
  }
  watchingNotice();
  try {
    let first;
    try {
      first = await api(`/v1/games/${gameId}`, { auth });
    } catch (error) {
      // A spectator whose stored API key this server does not know (another run's): as anyone.
      if (held || !auth || error.status !== 401) throw error;
      auth = null;
      first = await api(`/v1/games/${gameId}`);
    }
    await apply(first);
  } catch (error) {
    loadFailed(error);
    return;
  }
  const feed = new ViewFeed(gameId, auth, { onView: apply, onEvents, onPresence, onState, onError: (p) => showError(p.words, false) });
  feed.version = view.version;
  feed.status = view.status;
  window.stakeoutFeed = feed; // for the browser tests and the curious
  feed.start();
}

window.addEventListener("hashchange", () => location.reload());
main();

/** The clock's initial bank in ms (null without a clock): a bank under a tenth of it looks
 * low; without it, only the last 30 s do. */
function initialBank(shown) {
  return shown && shown.clock ? shown.clock.initial_seconds * 1000 : null;
}
