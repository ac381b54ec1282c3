// The invite page: /web/join.html#<invite code>. Shows the game the invite is for, takes
// the open seat (POST /v1/invites/{code}) and goes to the table with the seat's token.
// No API key needed: the code is the secret someone passed on. A seat taken already is
// said so, with the way to watch (or back to the seat, when this browser took it).

import { api, Problem } from "./api.js";
import { $, h, fill, seatLabel, pageUrl, pageFailed } from "./dom.js";
import { gameInfo } from "./render.js";
import * as storage from "./storage.js";

const code = decodeURIComponent(location.hash.slice(1));
const ui = { error: $("#error"), invite: $("#invite"), form: $("#join-form"), name: $("#name"), taken: $("#taken") };
const NAME_KEY = "stakeout.name";
// The API's pattern of an invite code (the contract's, for GET /v1/invites/{code}).
const CODE = /^[A-Za-z0-9_-]{8,128}$/;
const ENDED = ["finished", "aborted", "abandoned"];

const FAILED = "This invite cannot be used";

function showError(error) {
  ui.error.hidden = !error;
  fill(ui.error, error ? (error instanceof Problem ? error.words : String(error)) : "");
}

/** Where to go when the seat cannot be taken: back to it, or watch (or the replay). */
function takenNote(invite, why) {
  const mine = storage.seats.all(invite.game_id)[invite.seat];
  if (mine) {
    return fill(ui.taken, h("p", {}, "You took this seat already, in this browser."), h("p", {}, h("a", { href: pageUrl("table.html", `${invite.game_id}/${invite.seat}`) }, `Back to your seat`)));
  }
  const over = ENDED.includes(invite.status);
  const link = over && invite.status !== "abandoned"
    ? h("a", { href: pageUrl("replay.html", invite.game_id) }, "Replay the game")
    : h("a", { href: pageUrl("table.html", `${invite.game_id}/watch`), "data-watch": "" }, "Watch the game");
  return fill(ui.taken, h("p", {}, why), h("p", {}, link));
}

function takenWhy(invite) {
  if (ENDED.includes(invite.status)) return `This invite's seat can no longer be taken: the game is ${invite.status}.`;
  if (invite.status === "active") return "Someone has taken this seat already, and the game has started.";
  return "Someone has taken this seat already; the game waits for its other players.";
}

async function describe(invite) {
  const [rules, info] = await Promise.all([api(`/v1/rules/${invite.game}`).catch(() => ({ title: invite.game })), gameInfo(invite.game)]);
  const options = Object.entries(invite.options || {}).map(([key, value]) => {
    const words = info.options[key] || {};
    const shown = words.values && words.values[value] ? words.values[value] : typeof value === "boolean" ? (value ? "yes" : "no") : value;
    return `${words.label || key.replace(/_/g, " ")}: ${shown}`;
  });
  fill(
    ui.invite,
    h("p", {}, h("strong", {}, rules.title), ` — this invite is for seat ${invite.seat}.`),
    options.length ? h("ul", { class: "hint options-chosen", "aria-label": "Options" }, options.map((text) => h("li", {}, text))) : null,
    h("ul", { class: "seats" }, invite.seats.map((seat) => h("li", { class: `seat${seat.seat === invite.seat ? " awaited" : ""}` }, seatLabel(seat, null)))),
  );
}

async function take(event) {
  event.preventDefault();
  showError(null);
  const name = ui.name.value.trim();
  if (name) localStorage.setItem(NAME_KEY, name);
  try {
    const taken = await api(`/v1/invites/${encodeURIComponent(code)}`, { method: "POST", body: name ? { name } : {} });
    storage.seats.add(taken.game_id, taken.seat, taken.token);
    location.assign(pageUrl("table.html", `${taken.game_id}/${taken.seat}`));
  } catch (error) {
    // Taken meanwhile (or the game started): no second try; say where to go instead.
    const again = await api(`/v1/invites/${encodeURIComponent(code)}`).catch(() => null);
    if (again && !again.seats[again.seat].open) {
      ui.form.hidden = true;
      takenNote(again, takenWhy(again));
    } else {
      showError(error);
    }
  }
}

async function main() {
  if (!code) return pageFailed(FAILED, "This page needs an invite: open the whole invite link you were sent.");
  if (!CODE.test(code)) {
    return pageFailed(FAILED, "This invite link is incomplete or mistyped: open the whole link you were sent, or ask for it again.");
  }
  let invite;
  try {
    invite = await api(`/v1/invites/${encodeURIComponent(code)}`);
  } catch (error) {
    return pageFailed(FAILED, error.status === 404 ? "This invite is unknown: check the link, or ask for a new one." : error instanceof Problem ? error.words : String(error));
  }
  await describe(invite);
  if (!invite.seats[invite.seat].open) return takenNote(invite, takenWhy(invite));
  ui.name.value = localStorage.getItem(NAME_KEY) || "";
  ui.form.hidden = false;
  ui.form.addEventListener("submit", take);
}

main();

// A second invite pasted into this tab's address bar changes only the hash: start again
// for it (as the table and the replay do), not show the first one.
window.addEventListener("hashchange", () => location.reload());
