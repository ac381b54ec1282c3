// The invite page: /web/join.html#<invite code>. Shows the game the invite is for, takes
// the open seat (POST /v1/invites/{code}) and goes to the table with the seat's token.
// No API key needed: the code is the secret someone passed on.

import { api, Problem } from "./api.js";
import { $, h, fill, seatLabel, pageUrl } from "./dom.js";
import * as storage from "./storage.js";

const code = decodeURIComponent(location.hash.slice(1));
const ui = { error: $("#error"), invite: $("#invite"), form: $("#join-form"), name: $("#name") };
const NAME_KEY = "stakeout.name";

function showError(error) {
  ui.error.hidden = !error;
  fill(ui.error, error ? (error instanceof Problem ? error.words : String(error)) : "");
}

async function main() {
  if (!code) return showError("no invite: the address should end in #<invite code>.");
  let invite;
  try {
    invite = await api(`/v1/invites/${encodeURIComponent(code)}`);
  } catch (error) {
    fill(ui.invite);
    return showError(error.status === 404 ? "this invite is unknown or was already used." : error);
  }
  const rules = await api(`/v1/rules/${invite.game}`).catch(() => ({ title: invite.game }));
  const options = Object.entries(invite.options || {}).map(([k, v]) => `${k.replace(/_/g, " ")}: ${v}`);
  fill(
    ui.invite,
    h("p", {}, h("strong", {}, rules.title), ` — you would play seat ${invite.seat}.`),
    options.length ? h("p", { class: "hint" }, `Options: ${options.join(", ")}`) : null,
    h("ul", { class: "seats" }, invite.seats.map((info) => h("li", { class: `seat${info.seat === invite.seat ? " awaited" : ""}` }, seatLabel(info, null)))),
    invite.status === "waiting" ? null : h("p", { class: "hint" }, `The game is ${invite.status}.`),
  );
  ui.name.value = localStorage.getItem(NAME_KEY) || "";
  ui.form.hidden = false;
  ui.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(null);
    const name = ui.name.value.trim();
    if (name) localStorage.setItem(NAME_KEY, name);
    try {
      const taken = await api(`/v1/invites/${encodeURIComponent(code)}`, { method: "POST", body: name ? { name } : {} });
      storage.seats.add(taken.game_id, taken.seat, taken.token);
      location.assign(pageUrl("table.html", `${taken.game_id}/${taken.seat}`));
    } catch (error) {
      showError(error);
    }
  });
}

main();
