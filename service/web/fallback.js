// The generic table: what any game's view offers, without knowing the game. Used when a
// game has no renderer of its own (or it failed): legal moves as buttons, the state as text.

import { h, fill } from "./dom.js";
import { canonical } from "./sealed.js";

function words(type) {
  const name = type.includes(".") ? type.slice(type.indexOf(".") + 1) : type;
  return name.replace(/[_-]+/g, " ");
}

function moveLabel(move) {
  const rest = Object.entries(move)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => `${key.replace(/_/g, " ")} ${typeof value === "object" ? canonical(value) : value}`);
  return [words(move.type), ...rest].join(", ");
}

function renderTable(root, ctx) {
  const { view, act, mode } = ctx;
  const moves =
    mode === "play" && view.legal.length
      ? h(
          "div",
          { class: "moves", role: "group", "aria-label": "Your moves" },
          view.legal.map((move) =>
            h("button", { type: "button", "data-move": canonical(move), "aria-label": moveLabel(move), onclick: () => act(move) }, moveLabel(move)),
          ),
        )
      : null;
  fill(
    root,
    h("div", { class: "generic" }, moves, h("details", { open: mode !== "play" }, h("summary", {}, "The table (as the API gives it)"), h("pre", {}, JSON.stringify(view.state, null, 1)))),
  );
}

function describeEvent(record) {
  const event = record.event || {};
  const seat = typeof event.seat === "number" ? `Seat ${event.seat}: ` : "";
  return `${seat}${words(event.type || "event")}`;
}

export const fallback = { renderTable, describeEvent };
