// The rules page: /web/rules.html#<game>. The game in plain words (its module's howToPlay),
// its creation options in words, and the house rules this server plays by, all from
// GET /v1/rules/{game}, which is linked for the whole rules data.

import { api, Problem } from "./api.js";
import { $, h, fill, pageFailed } from "./dom.js";
import { gameInfo } from "./render.js";

const game = decodeURIComponent(location.hash.slice(1));

const FAILED = "These rules cannot be shown";

function optionItems(rules, words) {
  const defaults = rules.rules.options || {};
  return Object.entries(defaults).flatMap(([key, value]) => {
    const said = words[key] || {};
    const names = said.values || {};
    const shown = typeof value === "boolean" ? (value ? "on" : "off") : names[value] || value;
    // A help that depends on the value chosen (a city card's powers): each value's.
    const help =
      typeof said.help === "function"
        ? Object.entries(names).map(([choice, name]) => h("p", {}, h("strong", {}, `${name}: `), said.help(choice, rules)))
        : said.help
          ? h("p", {}, said.help)
          : null;
    const choices = Object.keys(names).length ? `Choices: ${Object.values(names).join(", ")}. ` : "";
    return [
      h("dt", {}, said.label || key.replace(/_/g, " ")),
      h("dd", {}, help, h("p", { class: "hint" }, `${choices}Unless chosen: ${shown}.`)),
    ];
  });
}

async function main() {
  if (!/^[a-z_]{1,32}$/.test(game)) return pageFailed(FAILED, "This address names no game: a rules page's address ends in #<game name>, as the lobby links it.");
  let rules;
  try {
    rules = await api(`/v1/rules/${game}`);
  } catch (error) {
    return pageFailed(FAILED, error.status === 404 ? `This server runs no game called ${game}: the lobby lists the games it runs.` : error instanceof Problem ? error.words : String(error));
  }
  const info = await gameInfo(game);
  document.title = `Rules of ${rules.title} · stakeout`;
  fill($("#title"), `Rules of ${rules.title}`);
  const how = info.howToPlay.length ? info.howToPlay : [rules.rules.summary || ""];
  fill($("#how"), how.map((text) => h("p", {}, text)), h("p", { class: "hint" }, `${rules.min_seats} to ${rules.max_seats} players; any seat may be a bot (${rules.bot_levels.join(", ")}).`));
  const items = optionItems(rules, info.options);
  $("#options-card").hidden = !items.length;
  fill($("#options"), items);
  fill(
    $("#house-rules"),
    rules.house_rules.map((rule) => h("li", { id: `rule-${rule.id}` }, h("strong", {}, `${rule.topic}. `), rule.text)),
  );
  $("#links").append(h("a", { href: `/v1/rules/${game}`, "data-rules-data": "" }, "The whole rules data (JSON, as GET /v1/rules/" + game + " gives it)"));
}

window.addEventListener("hashchange", () => location.reload());
main();
