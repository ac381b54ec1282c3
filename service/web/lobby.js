// The lobby (/web/): keep an API key, create a game of any kind (humans, open seats, bots
// of each level, the game's options), list the key's games and the public lobby, and copy
// invite links for open seats.

import { api, Problem } from "./api.js";
import { $, h, fill, pageUrl } from "./dom.js";
import * as storage from "./storage.js";

const ui = {
  error: $("#error"),
  key: $("#api-key"),
  game: $("#game"),
  summary: $("#game-summary"),
  seats: $("#seat-rows"),
  options: $("#options"),
  created: $("#created"),
  mine: $("#my-games"),
  public: $("#public-games"),
};

const catalogue = new Map(); // game name -> GET /v1/rules/{game}
let contract = null; // the OpenAPI document: the options' allowed values

function showError(error) {
  ui.error.hidden = !error;
  fill(ui.error, error ? (error instanceof Problem ? error.words : String(error)) : "");
}

const SEAT_KINDS = [
  ["human", "Human (you get its token)"],
  ["open", "Open seat (invite someone)"],
  ["random", "Bot: random"],
  ["greedy", "Bot: greedy"],
  ["expert", "Bot: expert"],
];

function seatRow(index, kind) {
  const select = h(
    "select",
    { "aria-label": `Seat ${index}`, "data-seat": index },
    SEAT_KINDS.map(([value, text]) => h("option", { value, selected: value === kind }, text)),
  );
  const name = h("input", { type: "text", maxlength: 40, placeholder: "name (optional)", "aria-label": `Seat ${index} name` });
  return h("div", { class: "seat-row" }, h("span", {}, `Seat ${index}`), select, name);
}

function resetSeats() {
  const info = catalogue.get(ui.game.value);
  if (!info) return;
  const rows = [seatRow(0, "human")];
  for (let i = 1; i < info.min_seats; i++) rows.push(seatRow(i, "random"));
  fill(ui.seats, rows);
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

function drawOptions() {
  const info = catalogue.get(ui.game.value);
  if (!info) return;
  const defaults = info.rules.options || {};
  const schemas = optionSchema(ui.game.value);
  const fields = Object.entries(defaults).map(([key, value]) => {
    const schema = resolve(schemas[key]);
    const id = `option-${key}`;
    let input;
    if (Array.isArray(schema.enum)) {
      input = h("select", { id, "data-option": key }, schema.enum.map((v) => h("option", { value: v, selected: v === value }, v)));
    } else if (typeof value === "boolean") {
      input = h("input", { id, type: "checkbox", "data-option": key, checked: value });
    } else if (typeof value === "number") {
      input = h("input", { id, type: "number", "data-option": key, value, min: schema.minimum, max: schema.maximum, step: 1 });
    } else {
      input = h("input", { id, type: "text", "data-option": key, value });
    }
    return h("div", {}, h("label", { for: id }, key.replace(/_/g, " ")), input, schema.description ? h("p", { class: "hint" }, schema.description) : null);
  });
  fill(ui.options, fields.length ? [h("h3", {}, "Options"), fields] : []);
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
    const name = row.querySelector("input").value.trim();
    const seat = ["random", "greedy", "expert"].includes(kind) ? { type: "bot", level: kind } : { type: kind };
    if (name) seat.name = name;
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

async function create(event) {
  event.preventDefault();
  showError(null);
  const body = { game: ui.game.value, seats: chosenSeats(), options: chosenOptions() };
  const turn = $("#turn-seconds").value.trim();
  if (turn) body.turn_seconds = Number(turn);
  if ($("#public").checked) body.public = true;
  try {
    const created = await api("/v1/games", { method: "POST", auth: storage.apiKey.get(), body });
    const humans = created.seats.filter((s) => s.token);
    for (const grant of humans) storage.seats.add(created.id, grant.seat, grant.token);
    const invites = created.seats.filter((s) => s.invite);
    fill(
      ui.created,
      h("h3", {}, "Game created"),
      humans.map((grant) => h("p", {}, h("a", { href: pageUrl("table.html", `${created.id}/${grant.seat}`), "data-play": grant.seat }, `Play seat ${grant.seat}`))),
      invites.length ? [h("p", { class: "hint" }, "Send each invite link to one person: whoever opens it first takes the seat."), invites.map(inviteLine)] : null,
      h("p", {}, h("a", { href: pageUrl("table.html", `${created.id}/watch`) }, "Watch")),
    );
    listMine();
  } catch (error) {
    showError(error);
  }
}

function gameRow(summary, withPlay) {
  const title = (catalogue.get(summary.game) || {}).title || summary.game;
  const awaiting = summary.awaiting.map((a) => `seat ${a.seat} (${a.action})`).join(", ");
  const result = summary.result ? `won by seat ${summary.result.winners.join(", ")}: ${summary.result.scores.join(" / ")}` : "";
  const held = Object.keys(storage.seats.all(summary.id));
  const links = [];
  if (withPlay) for (const seat of held) links.push(h("a", { href: pageUrl("table.html", `${summary.id}/${seat}`) }, `play seat ${seat}`));
  links.push(h("a", { href: pageUrl("table.html", `${summary.id}/watch`) }, "watch"));
  if (["finished", "aborted"].includes(summary.status)) links.push(h("a", { href: pageUrl("replay.html", summary.id) }, "replay"));
  if (withPlay && summary.status === "waiting") links.push(h("button", { type: "button", onclick: () => fillWithBots(summary.id) }, "fill open seats with bots"));
  return h(
    "tr",
    { "data-game": summary.id },
    h("td", {}, title),
    h("td", {}, summary.status),
    h("td", {}, summary.status === "active" ? awaiting : summary.status === "waiting" ? `open: ${summary.seats.filter((s) => s.open).map((s) => `seat ${s.seat}`).join(", ")}` : result),
    h("td", {}, links.flatMap((link, i) => (i ? [" · ", link] : [link]))),
  );
}

function gameTable(games, withPlay) {
  if (!games.length) return h("p", { class: "hint" }, "None yet.");
  return h(
    "table",
    { class: "games" },
    h("thead", {}, h("tr", {}, ["Game", "Status", "Turn or result", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, games.map((g) => gameRow(g, withPlay))),
  );
}

async function fillWithBots(gameId) {
  try {
    await api(`/v1/games/${gameId}/fill`, { method: "POST", auth: storage.apiKey.get(), body: { level: "random" } });
    listMine();
  } catch (error) {
    showError(error);
  }
}

async function listMine() {
  const key = storage.apiKey.get();
  if (!key) return;
  try {
    const page = await api("/v1/games?limit=20", { auth: key });
    fill(ui.mine, gameTable(page.games, true));
  } catch (error) {
    fill(ui.mine, h("p", { class: "hint" }, error instanceof Problem ? error.words : String(error)));
  }
}

async function listPublic() {
  try {
    const page = await api("/v1/lobby?limit=20");
    fill(ui.public, gameTable(page.games, false));
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
    if (!pending) pending = setTimeout(() => ((pending = null), listMine()), 300);
  };
  for (const kind of ["seat.awaited", "game.started", "game.finished", "game.aborted", "rematch.created", "message"]) {
    source.addEventListener(kind, changed);
  }
  source.addEventListener("error", () => {
    source.close();
    if (accountFeed === source) setTimeout(() => followMine(), retry);
  });
}

async function main() {
  ui.key.value = storage.apiKey.get();
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
    fill(ui.mine, h("p", { class: "hint" }, "Paste your API key above to see them."));
  });
  $("#add-seat").addEventListener("click", () => {
    const info = catalogue.get(ui.game.value);
    const count = ui.seats.children.length;
    if (info && count < info.max_seats) ui.seats.append(seatRow(count, "random"));
  });
  $("#remove-seat").addEventListener("click", () => {
    const info = catalogue.get(ui.game.value);
    if (info && ui.seats.children.length > info.min_seats) ui.seats.lastElementChild.remove();
  });
  $("#new-game").addEventListener("submit", create);
  ui.game.addEventListener("change", () => {
    ui.summary.textContent = catalogue.get(ui.game.value).rules.summary || "";
    resetSeats();
    drawOptions();
  });
  try {
    const list = await api("/v1/rules");
    const names = (list.games || list).map((g) => (typeof g === "string" ? g : g.game || g.name));
    const [infos, schema] = await Promise.all([
      Promise.all(names.map((name) => api(`/v1/rules/${name}`))),
      api("/schema/openapi.json").catch(() => null),
    ]);
    contract = schema;
    for (const info of infos) catalogue.set(info.game, info);
    fill(ui.game, infos.map((info) => h("option", { value: info.game }, info.title)));
    ui.game.dispatchEvent(new Event("change"));
  } catch (error) {
    showError(error);
  }
  listMine();
  followMine();
  listPublic();
}

main();
