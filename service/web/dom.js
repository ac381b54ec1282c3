// Small DOM helpers for the pages (no framework, no build step).

/** h("div", {class: "x", onclick: fn}, child, "text", [more]) -> Element. */
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  add(node, children);
  return node;
}

function add(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) add(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace an element's content. */
export function fill(node, ...children) {
  node.replaceChildren();
  add(node, children);
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** "Seat 2" or the seat's name, with what plays it. */
export function seatLabel(info, you) {
  const name = info.name || `Seat ${info.seat}`;
  const who = info.open
    ? "open seat"
    : info.type === "bot"
      ? `bot, ${info.level}`
      : info.resigned
        ? "resigned, a bot plays"
        : "human";
  return `${name}${info.seat === you ? " (you)" : ""} · ${who}`;
}

/** "1 point", "5 points". */
export function points(n) {
  return `${n} point${n === 1 || n === -1 ? "" : "s"}`;
}

/** mm:ss (or h:mm:ss) until `deadline` (epoch ms); "0:00" once past. */
export function countdown(deadline, now = Date.now()) {
  let left = Math.max(0, Math.round((deadline - now) / 1000));
  const hours = Math.floor(left / 3600);
  left -= hours * 3600;
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** The page's address of another page, with a hash. */
export function pageUrl(page, hash) {
  return new URL(`${page}#${hash}`, location.href).href;
}

/**
 * The page could not load what it shows (no such game, a mistyped address, a server away):
 * it keeps its header and a card with what failed, the reason in words (in `#error`, without
 * the "Not done:" of a refused act) and the way back to the lobby; the empty sections go.
 */
export function pageFailed(title, reason) {
  const error = $("#error") || h("div", { id: "error", class: "error", role: "alert" });
  fill(error, reason);
  error.hidden = false;
  $("main").replaceChildren(
    h(
      "section",
      { class: "card failed", "data-failed": "" },
      h("h2", {}, title),
      error,
      h("p", { class: "links" }, h("a", { href: "./", "data-lobby": "" }, "Back to the lobby")),
    ),
  );
  document.body.dataset.failed = "";
}
