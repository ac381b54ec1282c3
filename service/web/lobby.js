// The lobby (/web/): keep an API key, create a game of any kind (humans, open seats, bots
// of each level, the game's options, who may watch), list the key's games (abort one made
// by mistake) and the public lobby, and copy invite links for open seats.

import { api, Problem } from "./api.js";
import { $, h, fill, pageUrl } from "./dom.js";
import { rating } from "./ratings.js";
import { gameInfo } from "./render.js";
import * as storage from "./storage.js";

const ui = {
  error: $("#error"),
  key: $("#api-key"),
  keyProblem: $("#key-problem"),
  game: $("#game"),
  summary: $("#game-summary"),
  seats: $("#seat-rows"),
  rated: $("#rated"),
  options: $("#options"),
  created: $("#created"),
  mine: $("#my-games"),
  public: $("#public-games"),
};

const catalogue = new Map(); // game name -> {rules: GET /v1/rules/{game}, info: gameInfo}
let contract = null; // the OpenAPI document: the options' allowed values

const STALE_KEY =
  "The API key saved in this browser no longer works: this server does not know it (a key of an earlier run, perhaps). Paste the key the server printed when it started, or forget this one.";
const NO_KEY = "Creating a game needs an API key: paste yours above.";

function showError(error) {
  ui.error.hidden = !error;
  fill(ui.error, error ? (error instanceof Problem ? error.words : String(error)) : "");
}

/** The saved key was refused (401): say so by the key field, once for every list. */
function keyRefused(refused) {
  ui.keyProblem.hidden = !refused;
  fill(ui.keyProblem, refused ? STALE_KEY : "");
  ui.key.toggleAttribute("aria-invalid", refused);
}

const SEAT_KINDS = [
  ["human", "Human: you play it here"],
  ["open", "Open: invite someone"],
  ["random", "Bot: random"],
  ["greedy", "Bot: greedy"],
  ["expert", "Bot: expert"],
];

const PEOPLE = ["human", "open"]; // the seat kinds a person takes: they may name a player

function seatRow(index, kind) {
  const select = h(
    "select",
    { "aria-label": `Seat ${index}`, "data-seat": index },
    SEAT_KINDS.map(([value, text]) => h("option", { value, selected: value === kind }, text)),
  );
  const name = h("input", { type: "text", maxlength: 40, placeholder: "name (optional)", "aria-label": `Seat ${index} name`, "data-name": "" });
  // The player's id in your own app (the API's external_id): what rates the seat. The first
  // person's seat starts with this browser's player id (Quick match's), when it has one.
  const player = h("input", {
    type: "text",
    maxlength: 200,
    autocomplete: "off",
    placeholder: "(optional)",
    "aria-label": `Seat ${index} player id`,
    "data-player": "",
    value: index === 0 ? storage.player.get() || null : null,
  });
  const playerField = h("label", { class: "seat-player" }, h("span", {}, "Player id"), player);
  const shown = () => (playerField.hidden = !PEOPLE.includes(select.value));
  select.addEventListener("change", shown);
  shown();
  return h("div", { class: "seat-row" }, h("span", {}, `Seat ${index}`), select, name, playerField);
}

function resetSeats() {
  const entry = catalogue.get(ui.game.value);
  if (!entry) return;
  const rows = [seatRow(0, "human")];
  for (let i = 1; i < entry.rules.min_seats; i++) rows.push(seatRow(i, "random"));
  fill(ui.seats, rows);
  sayRating();
}

/** Under the seats: whether the game will be rated, and if not why, as the seats stand. */
function sayRating() {
  const { rated, unnamed, text } = rating(chosenSeats());
  fill(ui.rated, text, !rated && unnamed.length ? " Give a person's seat a player id to rate it." : "");
  ui.rated.dataset.rated = String(rated);
}

function optionSchema(game) {
  if (!contract) return {};
  for (const schema of Object.values(contract.components.schemas)) {
    const props = schema.properties || {};
    if (props.game && props.game.const === game && props.options && props.options.$ref) {
      const ref = props.options.$ref.split("/").pop();
      return contract.components.schemas[ref].properties || {};
    }
  }
  return {};
}

function resolve(schema) {
  if (schema && schema.$ref && contract) return { ...contract.components.schemas[schema.$ref.split("/").pop()], ...schema };
  return schema || {};
}

/** A contract description a person can read, for an option the game's module does not put
 * in words: no markup, no default (the field shows it). */
function plainHelp(description) {
  return String(description || "")
    .replace(/\s*Default: `[^`]*`\.?/g, "")
    .replace(/`/g, "")
    .trim();
}

function optionField(key, value, schema, words, rules) {
  const id = `option-${key}`;
  const help = h("p", { class: "hint", id: `${id}-help` });
  const explain = (chosen) => {
    const text = typeof words.help === "function" ? words.help(chosen, rules) : words.help || plainHelp(schema.description);
    fill(help, text || "");
    help.hidden = !text;
  };
  const described = { id, "data-option": key, "aria-describedby": `${id}-help` };
  let input;
  if (Array.isArray(schema.enum)) {
    const names = words.values || {};
    input = h("select", described, schema.enum.map((v) => h("option", { value: v, selected: v === value }, names[v] || v)));
    input.addEventListener("change", () => explain(input.value));
  } else if (typeof value === "boolean") {
    input = h("input", { ...described, type: "checkbox", checked: value });
  } else if (typeof value === "number") {
    input = h("input", { ...described, type: "number", value, min: schema.minimum, max: schema.maximum, step: 1 });
  } else {
    input = h("input", { ...described, type: "text", value });
  }
  explain(value);
  const label = words.label || key.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  if (input.type === "checkbox") return h("div", { class: "option" }, h("label", { class: "choice" }, input, ` ${label}`), help);
  return h("div", { class: "option" }, h("label", { for: id }, label), input, help);
}

function drawOptions() {
  const entry = catalogue.get(ui.game.value);
  if (!entry) return;
  const defaults = entry.rules.rules.options || {};
  const schemas = optionSchema(ui.game.value);
  const words = entry.info.options;
  const fields = Object.entries(defaults).map(([key, value]) => optionField(key, value, resolve(schemas[key]), words[key] || {}, entry.rules));
  fill(ui.options, fields.length ? [h("h3", {}, "Options"), fields] : []);
}

function drawSummary() {
  const entry = catalogue.get(ui.game.value);
  if (!entry) return;
  const paragraphs = entry.info.howToPlay.length ? entry.info.howToPlay : [entry.rules.rules.summary || ""];
  fill(
    ui.summary,
    paragraphs.map((text) => h("p", {}, text)),
    h("p", {}, h("a", { href: `rules.html#${entry.rules.game}`, "data-rules": entry.rules.game }, `The rules of ${entry.rules.title} and this server's house rules`)),
  );
}

function chosenOptions() {
  const options = {};
  for (const input of ui.options.querySelectorAll("[data-option]")) {
    const key = input.dataset.option;
    if (input.type === "checkbox") options[key] = input.checked;
    else if (input.type === "number") options[key] = Number(input.value);
    else options[key] = input.value;
  }
  return options;
}

function chosenSeats() {
  return [...ui.seats.querySelectorAll(".seat-row")].map((row) => {
    const kind = row.querySelector("select").value;
    const name = row.querySelector("[data-name]").value.trim();
    const player = row.querySelector("[data-player]").value.trim();
    const seat = ["random", "greedy", "expert"].includes(kind) ? { type: "bot", level: kind } : { type: kind };
    if (name) seat.name = name;
    if (player && PEOPLE.includes(kind)) seat.external_id = player;
    return seat;
  });
}

function inviteLine(grant) {
  const url = pageUrl("join.html", grant.invite.code);
  const field = h("input", { type: "text", readonly: true, value: url, "aria-label": `Invite link for seat ${grant.seat}`, "data-invite": grant.seat });
  const copy = h("button", {
    type: "button",
    onclick: async () => {
      field.select();
      try {
        await navigator.clipboard.writeText(url);
        copy.textContent = "Copied";
      } catch {
        document.execCommand("copy");
        copy.textContent = "Copied";
      }
    },
  }, "Copy invite link");
  return h("div", { class: "invite" }, h("span", {}, `Seat ${grant.seat}:`), field, copy);
}

function newGameBody() {
  const body = { game: ui.game.value, seats: chosenSeats(), options: chosenOptions() };
  const turn = $("#turn-seconds").value.trim();
  if (turn) body.turn_seconds = Number(turn);
  const visibility = $('input[name="visibility"]:checked').value;
  if (visibility === "public") body.public = true;
  if (visibility === "private") body.private = true;
  return body;
}

function showCreated(created) {
  const humans = created.seats.filter((s) => s.token);
  for (const grant of humans) storage.seats.add(created.id, grant.seat, grant.token);
  const invites = created.seats.filter((s) => s.invite);
  const heading = h("h3", { tabindex: -1 }, "Game created");
  const rated = rating(created.seats);
  fill(
    ui.created,
    heading,
    h("p", { class: "rated", "data-rated": String(rated.rated) }, rated.text),
    humans.map((grant) => h("p", {}, h("a", { href: pageUrl("table.html", `${created.id}/${grant.seat}`), "data-play": grant.seat }, `Play seat ${grant.seat}`))),
    invites.length ? [h("p", { class: "hint" }, "Send each invite link to one person: whoever opens it first takes the seat."), invites.map(inviteLine)] : null,
    h("p", {}, h("a", { href: pageUrl("table.html", `${created.id}/watch`) }, "Watch")),
  );
  // Below the form, out of sight after a click on Create: brought into view, and focused
  // so that a screen reader says it too.
  ui.created.scrollIntoView({ block: "center" });
  heading.focus({ preventScroll: true });
}

/** The server's "seats[1].external_id: ..." as the form names it: the seat's player id. */
function playerIdRefused(error) {
  const seat = /seats\[(\d+)\]/.exec(error.detail || "");
  const why = (error.detail || "").replace(/^[^:]*:\s*/, "").replace(/an external_id/g, "a player id");
  return `The game was not created: ${seat ? `seat ${seat[1]}'s player id` : "a player id"} is refused (${why || "never empty, no /, no control characters"}).`;
}

async function create(event) {
  event.preventDefault();
  showError(null);
  const key = storage.apiKey.get();
  if (!key) return showError(NO_KEY);
  try {
    showCreated(await api("/v1/games", { method: "POST", auth: key, body: newGameBody() }));
    listMine();
    listPublic();
  } catch (error) {
    if (error.status === 401) {
      keyRefused(true);
      return showError("The game was not created: the saved API key no longer works (see above).");
    }
    if (error.code === "invalid-external-id") return showError(playerIdRefused(error));
    showError(error);
  }
}

const STATUS_WORDS = {
  waiting: "waiting for players",
  active: "active",
  finished: "finished",
  aborted: "aborted",
  abandoned: "abandoned",
};
const ACTION_WORDS = { move: "to move", commit: "to choose in secret", reveal: "to reveal" };

function seatWords(info, held) {
  const name = info.name || `Seat ${info.seat}`;
  const you = info.seat in held ? " (you)" : "";
  const what = info.open ? "open" : info.type === "bot" ? `bot, ${info.level}` : info.resigned ? "resigned: a bot plays" : "";
  return `${name}${you}${what ? ` (${what})` : ""}`;
}

function turnWords(summary, held) {
  const name = (seat) => (seat in held ? "you" : (summary.seats[seat] && summary.seats[seat].name) || `seat ${seat}`);
  if (summary.status === "active") {
    return `Waiting for ${summary.awaiting.map((a) => `${name(a.seat)} ${ACTION_WORDS[a.action] || a.action}`).join(", ")}.`;
  }
  if (summary.status === "waiting") return `Open: ${summary.seats.filter((s) => s.open).map((s) => `seat ${s.seat}`).join(", ")}.`;
  if (!summary.result) return "No result.";
  const winners = summary.result.winners.map(name).join(" and ");
  return `Won by ${winners}. Scores: ${summary.result.scores.map((score, seat) => `${name(seat)} ${score}`).join(", ")}.`;
}

/** A game of the list that is not (or will not be) rated says why; a rated one says nothing. */
function unratedWords(summary) {
  const ended = ["aborted", "abandoned"].includes(summary.status);
  const { rated, text } = rating(summary.seats);
  if (!ended && rated) return null;
  return h("div", { class: "game-rated hint", "data-rated": "false" }, ended ? "Not rated: it ended without a result." : text);
}

function createdTime(ms) {
  const when = new Date(ms);
  return h("time", { datetime: when.toISOString() }, when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }));
}

// The games whose abort is being asked about: the question outlives a redraw of the list.
const asking = new Set();

/** Abort, asked twice: a first click shows what it does and the button that does it. */
function abortControl(summary) {
  const place = h("span", { class: "confirm" });
  const ask = h("button", { type: "button", onclick: () => (asking.add(summary.id), fill(place, confirmation)) }, "Abort…");
  const confirmation = [
    h("span", {}, "End this game now, with no result for anyone? "),
    h("button", { type: "button", class: "danger", onclick: () => (asking.delete(summary.id), abortGame(summary.id)) }, "Abort the game"),
    " ",
    h("button", { type: "button", onclick: () => (asking.delete(summary.id), fill(place, ask)) }, "Keep it"),
  ];
  return fill(place, asking.has(summary.id) ? confirmation : ask);
}

function gameRow(summary, mine) {
  const title = (catalogue.get(summary.game) || { rules: {} }).rules.title || summary.game;
  const held = storage.seats.all(summary.id);
  const links = [];
  if (mine) for (const seat of Object.keys(held)) links.push(h("a", { href: pageUrl("table.html", `${summary.id}/${seat}`) }, `play seat ${seat}`));
  links.push(h("a", { href: pageUrl("table.html", `${summary.id}/watch`) }, "watch"));
  if (["finished", "aborted"].includes(summary.status)) links.push(h("a", { href: pageUrl("replay.html", summary.id) }, "replay"));
  if (mine && summary.status === "waiting") links.push(h("button", { type: "button", onclick: () => fillWithBots(summary.id) }, "Fill open seats with bots"));
  if (mine && ["waiting", "active"].includes(summary.status)) links.push(abortControl(summary));
  return h(
    "li",
    { class: "game", "data-game": summary.id, "data-status": summary.status },
    h("div", { class: "game-head" }, h("strong", {}, title), " ", h("span", { class: `pill status-${summary.status}` }, STATUS_WORDS[summary.status] || summary.status), " ", h("span", { class: "hint" }, "created ", createdTime(summary.created_ms))),
    h("div", { class: "game-seats" }, summary.seats.map((info) => seatWords(info, held)).join(" · ")),
    h("div", { class: "game-turn" }, turnWords(summary, held)),
    unratedWords(summary),
    h("div", { class: "game-id hint" }, "Game id ", h("code", {}, summary.id)),
    h("div", { class: "game-links" }, links.flatMap((link, i) => (i ? [" · ", link] : [link]))),
  );
}

function gameList(games, mine) {
  if (!games.length) return h("p", { class: "hint" }, "None yet.");
  return h("ul", { class: "games" }, games.map((g) => gameRow(g, mine)));
}

async function fillWithBots(gameId) {
  try {
    await api(`/v1/games/${gameId}/fill`, { method: "POST", auth: storage.apiKey.get(), body: { level: "random" } });
    listMine();
    listPublic();
  } catch (error) {
    showError(error);
  }
}

async function abortGame(gameId) {
  showError(null);
  try {
    await api(`/v1/games/${gameId}/abort`, { method: "POST", auth: storage.apiKey.get() });
  } catch (error) {
    showError(error);
  }
  listMine();
  listPublic();
}

async function listMine() {
  const key = storage.apiKey.get();
  if (!key) return;
  try {
    const page = await api("/v1/games?limit=20", { auth: key });
    keyRefused(false);
    fill(ui.mine, gameList(page.games, true));
  } catch (error) {
    if (error.status === 401) keyRefused(true);
    const words = error.status === 401 ? "Your games cannot be listed with the saved key (see above)." : error instanceof Problem ? error.words : String(error);
    fill(ui.mine, h("p", { class: "hint" }, words));
  }
}

async function listPublic() {
  try {
    const page = await api("/v1/lobby?limit=20");
    fill(ui.public, gameList(page.games, false));
  } catch (error) {
    fill(ui.public, h("p", { class: "hint" }, error.status === 404 ? "This server has no public lobby." : error.words));
  }
}

/**
 * The key's games, kept current by the account feed (GET /v1/feed with a single-use
 * ticket): any happening in one of them (a seat awaited, a start, an end, a rematch)
 * redraws the list. Reopened with a new ticket after a drop.
 */
let accountFeed = null;
async function followMine(retry = 1000) {
  if (accountFeed) accountFeed.close();
  accountFeed = null;
  const key = storage.apiKey.get();
  if (!key) return;
  let ticket;
  try {
    ticket = await api("/v1/feed/tickets", { method: "POST", auth: key });
  } catch (error) {
    if (error.status === 0 || error.status >= 500) setTimeout(() => followMine(Math.min(retry * 2, 8000)), retry);
    return;
  }
  const source = new EventSource(`/v1/feed?ticket=${encodeURIComponent(ticket.ticket)}`);
  accountFeed = source;
  let pending = null;
  const changed = () => {
    if (!pending) pending = setTimeout(() => ((pending = null), listMine(), listPublic()), 300);
  };
  for (const kind of ["seat.awaited", "game.started", "game.finished", "game.aborted", "rematch.created", "message"]) {
    source.addEventListener(kind, changed);
  }
  source.addEventListener("error", () => {
    source.close();
    if (accountFeed === source) setTimeout(() => followMine(), retry);
  });
}

function wireForms() {
  $("#key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    storage.apiKey.set(ui.key.value.trim());
    listMine();
    followMine();
  });
  $("#forget-key").addEventListener("click", () => {
    storage.apiKey.set(null);
    if (accountFeed) accountFeed.close();
    accountFeed = null;
    ui.key.value = "";
    keyRefused(false);
    fill(ui.mine, h("p", { class: "hint" }, "Paste your API key above to see them."));
  });
  $("#add-seat").addEventListener("click", () => {
    const entry = catalogue.get(ui.game.value);
    const count = ui.seats.children.length;
    if (entry && count < entry.rules.max_seats) ui.seats.append(seatRow(count, "random"));
    sayRating();
  });
  $("#remove-seat").addEventListener("click", () => {
    const entry = catalogue.get(ui.game.value);
    if (entry && ui.seats.children.length > entry.rules.min_seats) ui.seats.lastElementChild.remove();
    sayRating();
  });
  ui.seats.addEventListener("input", sayRating);
  ui.seats.addEventListener("change", sayRating);
  $("#new-game").addEventListener("submit", create);
  ui.game.addEventListener("change", () => {
    drawSummary();
    resetSeats();
    drawOptions();
  });
}

async function loadGames() {
  const list = await api("/v1/rules");
  const names = (list.games || list).map((g) => (typeof g === "string" ? g : g.game || g.name));
  const [entries, schema] = await Promise.all([
    Promise.all(names.map(async (name) => ({ rules: await api(`/v1/rules/${name}`), info: await gameInfo(name) }))),
    api("/schema/openapi.json").catch(() => null),
  ]);
  contract = schema;
  for (const entry of entries) catalogue.set(entry.rules.game, entry);
  fill(ui.game, entries.map((entry) => h("option", { value: entry.rules.game }, entry.rules.title)));
  ui.game.dispatchEvent(new Event("change"));
}

async function main() {
  ui.key.value = storage.apiKey.get();
  wireForms();
  try {
    await loadGames();
  } catch (error) {
    showError(error);
  }
  listMine();
  followMine();
  listPublic();
}

main();
