// Time banks (issue #34) counted down from the server's time, never the browser's clock.
//
// A view says when the server made it (`server_time_ms`) and each seat's bank then
// (`seats[i].clock.remaining_ms`, `running`). The page keeps the offset between that time
// and its own monotonic clock (`performance.now()`) when the view arrived, so a browser
// whose clock is wrong, or jumps, still counts the right time; only running banks count.

import { h } from "./dom.js";

// A bank looks low under this share of its initial bank, or under LOW_MS.
const LOW_SHARE = 0.1;
const LOW_MS = 30_000;

/** The server's "now", from the offset the last view gave. */
export class ServerTime {
  constructor() {
    this.offset = null; // server ms minus local monotonic ms, when the last view arrived
  }

  /** A view (made at `serverTimeMs`) arrived now. */
  observe(serverTimeMs, local = performance.now()) {
    if (serverTimeMs) this.offset = serverTimeMs - local;
  }

  /** The server's epoch ms now (the browser's own clock before any view said). */
  now(local = performance.now()) {
    return this.offset === null ? Date.now() : local + this.offset;
  }
}

/** What a seat's bank holds at `serverNow` (ms, never below 0). */
export function bankLeft(clock, viewTimeMs, serverNow) {
  if (!clock.running) return clock.remaining_ms;
  return Math.max(0, clock.remaining_ms - Math.max(0, serverNow - viewTimeMs));
}

/** "0:42", "12:05", "1:02:03", "2 d 04 h": whole seconds rounded up, so "0:00" never shows
 * while time is left. */
export function bankText(ms) {
  let left = Math.ceil(ms / 1000);
  const days = Math.floor(left / 86400);
  left -= days * 86400;
  const hours = Math.floor(left / 3600);
  left -= hours * 3600;
  if (days) return `${days} d ${String(hours).padStart(2, "0")} h`;
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** "empty", "low" or "" for a bank holding `ms` of an initial `initialMs` (null: unknown). */
export function bankLevel(ms, initialMs) {
  if (ms <= 0) return "empty";
  const share = initialMs ? ms < initialMs * LOW_SHARE : false;
  return share || ms < LOW_MS ? "low" : "";
}

/** The seat's bank as an element the ticker keeps current (`tick`); null without a clock.
 * Its visible text is the time left (`.bank-left`); a screen reader hears "time bank" first. */
export function bankNode(clock, viewTimeMs) {
  if (!clock) return null;
  return h(
    "span",
    {
      class: `bank${clock.running ? " running" : ""}`,
      "data-bank": "",
      "data-remaining-ms": clock.remaining_ms,
      "data-view-time-ms": viewTimeMs,
      "data-running": clock.running ? "true" : "false",
    },
    h("span", { class: "visually-hidden" }, "time bank "),
    h("span", { class: "bank-left" }),
  );
}

/** Every bank on the page as of `serverNow`: its text, its look and its title. */
export function tick(serverNow, initialMs, root = document) {
  for (const node of root.querySelectorAll("[data-bank]")) {
    const clock = { remaining_ms: Number(node.dataset.remainingMs), running: node.dataset.running === "true" };
    const left = bankLeft(clock, Number(node.dataset.viewTimeMs), serverNow);
    const level = bankLevel(left, initialMs);
    const text = level === "empty" ? "out of time" : bankText(left);
    const shown = node.querySelector(".bank-left");
    if (shown.textContent !== text) shown.textContent = text;
    if (node.dataset.level !== level) node.dataset.level = level;
    const words = level === "empty" ? "Time bank empty" : `Time bank: ${text} left${clock.running ? ", counting down" : ""}`;
    if (node.title !== words) node.title = words;
  }
}
