// Helpers shared by the game renderers (fbi.js, feds.js, bonnie_clyde.js).
// Plain DOM, no framework: each renderer rebuilds its root from the view on every call.
//
// What every renderer keeps to (tests/browser/test_renderers.py checks it on real games):
// - each item of view.legal is exactly one <button data-move="<canonical JSON>"> with an
//   aria-label in words, and no button offers anything else; clicking it calls ctx.act(move)
//   with that item (Moves.button); items a game's drawing does not place get a plain button;
// - no buttons unless ctx.mode is "play"; while the shell marks the root "busy" (an act on its
//   way) they are drawn disabled; a sealed choice this browser committed is aria-pressed;
// - no inline styles or scripts (the pages' Content-Security-Policy is self only): classes and
//   the game's stylesheet, SVG drawn with presentation attributes;
// - describeEvent gives every event of the game in words (one sentence; "you" for the viewing
//   seat inside it, capitalised only at its start); the shared ones come from here;
// - a module may also export howToPlay (a few plain paragraphs) and options (each creation
//   option's label, its values in words and a help text, or a function of the value and the
//   rules data): the lobby, the invite and the rules page show them (render.js gameInfo).

import { h, points } from "../dom.js";
import { canonical } from "../sealed.js";

// The pages' DOM helper, shared with the renderers:
// h("div", {class: "x"}, child, "text", [more]) -> Element; points(1) -> "1 point".
export { h, points };
// The canonical JSON of a move, as the server hashes it (the sealed scheme's own).
export { canonical };

/** An SVG element in the SVG namespace (h() would create HTML elements for the children). */
export function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** "You" for the viewing seat, else "Seat N" (the API's 0-based seat number). */
export function seatName(seat, view) {
  if (seat === null || seat === undefined) return "nobody";
  if (view && view.you === seat) return "You";
  const info = view && Array.isArray(view.seats) ? view.seats[seat] : null;
  return (info && info.name) || `Seat ${seat}`;
}

/** A seat inside a sentence: "you" for the viewing seat, else as seatName. */
export function seatInSentence(seat, view) {
  const name = seatName(seat, view);
  return name === "You" ? "you" : name;
}

/** The sentence with its first letter upper-case (it may begin with "you"). */
export function capitalised(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** "Seat 2 (bot, greedy)" or "You" for a seat's panel heading. */
export function seatTitle(seat, view) {
  const name = seatName(seat, view);
  const info = view && Array.isArray(view.seats) ? view.seats[seat] : null;
  if (!info || name === "You") return name;
  if (info.type === "bot") return `${name} (bot, ${info.level})`;
  return info.resigned ? `${name} (resigned)` : name;
}

export function listWords(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

export function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

/**
 * Tracks the move buttons a renderer draws so that every item of `legal` ends up clickable:
 * whatever the game-specific drawing did not cover gets a plain button in `leftovers()`.
 */
export class Moves {
  constructor(ctx, root) {
    this.ctx = ctx;
    this.root = root;
    this.playing = ctx.mode === "play" || ctx.mode === undefined;
    this.legal = this.playing && Array.isArray(ctx.view && ctx.view.legal) ? ctx.view.legal : [];
    this.byKey = new Map(this.legal.map((move) => [canonical(move), move]));
    this.drawn = new Set();
    this.sealedChoice = sealedChoice(ctx.view);
    // The shell marks the table "busy" while an act is on its way and ignores acts until it is
    // answered (then it draws again): a view drawn meanwhile offers its moves disabled.
    this.busy = Boolean(root && root.classList && root.classList.contains("busy"));
  }

  /** Legal items matching a predicate, in the server's order. */
  filter(predicate) {
    return this.legal.filter(predicate);
  }

  has(move) {
    return this.byKey.has(canonical(move));
  }

  /**
   * A <button> that submits `move` (an item of legal). `content` is what it shows, `label`
   * its accessible name. Returns null when the move is not legal now.
   */
  button(move, label, content, className = "") {
    const key = canonical(move);
    if (!this.byKey.has(key)) return null;
    this.drawn.add(key);
    const legalMove = this.byKey.get(key);
    const button = h(
      "button",
      { type: "button", class: `gt-move ${className}`.trim(), "data-move": key, "aria-label": label, title: label },
      content === undefined ? label : content,
    );
    if (this.busy) button.disabled = true;
    if (this.sealedChoice === key) {
      // The shell keeps a committed sealed choice until its reveal; show which one it is.
      button.classList.add("gt-committed");
      button.setAttribute("aria-pressed", "true");
      button.setAttribute("aria-label", `${label} (your sealed choice)`);
    }
    button.addEventListener("click", async () => {
      const all = this.root.querySelectorAll("button.gt-move");
      all.forEach((b) => (b.disabled = true));
      button.classList.add("gt-chosen");
      try {
        await this.ctx.act(legalMove);
      } finally {
        // The shell normally redraws after an act; if it did not (an error), allow a retry.
        if (button.isConnected) all.forEach((b) => (b.disabled = false));
      }
    });
    return button;
  }

  /** Buttons for legal items no game-specific control covered (future or rare commands). */
  leftovers(describe) {
    const rest = this.legal.filter((move) => !this.drawn.has(canonical(move)));
    if (!rest.length) return null;
    return h(
      "div",
      { class: "gt-actions gt-other" },
      h("h3", {}, "Other moves"),
      h("div", { class: "gt-row" }, rest.map((move) => this.button(move, describe(move)))),
    );
  }
}

/**
 * The canonical move this browser committed for the seat's current sealed step, if the shell
 * kept one (localStorage "stakeout.sealed.<game>.<seat>.<step>" = {move, salt}); else null.
 */
function sealedChoice(view) {
  try {
    if (!view || typeof view.you !== "number" || !Array.isArray(view.awaiting)) return null;
    // Once this seat has committed, only the others are awaited; the step is the same for all.
    const mine =
      view.awaiting.find((a) => a.seat === view.you && a.action === "commit") ||
      view.awaiting.find((a) => a.action === "commit");
    if (!mine) return null;
    const kept = JSON.parse(localStorage.getItem(`stakeout.sealed.${view.id}.${view.you}.${mine.step}`) || "null");
    return kept && kept.move ? canonical(kept.move) : null;
  } catch {
    return null;
  }
}

/** A titled section. */
export function section(title, className, ...children) {
  return h("section", { class: `gt-section ${className || ""}`.trim(), "aria-label": title }, h("h3", {}, title), ...children);
}

/**
 * Words for the events every game shares (the match layer's), or null. `describeMove` puts a
 * revealed sealed move in the game's words (the replay and the seat's own log carry it).
 */
export function describeMatchEvent(event, view, describeMove) {
  const text = matchEventWords(event, view, describeMove);
  return text === null ? null : capitalised(text);
}

function matchEventWords(event, view, describeMove) {
  const who = (seat) => seatInSentence(seat, view);
  const yours = (seat) => view && view.you === seat;
  switch (event.type) {
    case "game.created":
      return `The game was created for ${(event.seats || []).length} seats; the seed's commitment was published.`;
    case "seal.committed":
      return `${who(event.seat)} sealed a secret choice.`;
    case "seal.revealed": {
      let words = null;
      try {
        words = event.move && describeMove ? describeMove(event.move) : null;
      } catch {
        words = null;
      }
      return words ? `${who(event.seat)} revealed a sealed choice: ${words}.` : `${who(event.seat)} revealed a sealed choice.`;
    }
    case "seal.forfeited":
      return `${who(event.seat)} forfeited a sealed choice${event.reason ? ` (${event.reason})` : ""}; a bot's choice stands in.`;
    case "clock.flagged": {
      const then = {
        bot_turn: "a bot plays this turn",
        bot_seat: `a bot plays ${yours(event.seat) ? "your" : "the"} seat from now on`,
        lose: `a bot plays ${yours(event.seat) ? "your" : "the"} seat from now on, ranked last`,
      }[event.on_time_out];
      return `${possessive(event.seat, view, true)} time bank ran out${then ? `: ${then}` : ""}.`;
    }
    case "turn.timed_out":
      return `${who(event.seat)} ran out of time, so a bot acted instead.`;
    case "seat.resigned":
      return `${who(event.seat)} resigned; a ${event.level || "random"} bot plays ${yours(event.seat) ? "your" : "the"} seat from now on.`;
    case "game.result_recorded": {
      const winners = event.winners || [];
      return `Result recorded: ${winners.length ? listWords(winners.map(who)) + (winners.length > 1 ? " share the win" : " won") : "no winner"}` +
        (event.scores ? ` (scores ${event.scores.join(", ")}).` : ".");
    }
    case "game.aborted":
      return "The game was aborted by its creator (no result).";
    case "game.abandoned":
      return `The game was abandoned: nobody acted for ${event.idle_seconds ? Math.round(event.idle_seconds / 86400) + " days" : "too long"} (no result).`;
    default:
      return null;
  }
}

/** Fallback words for an event type a renderer does not know. */
export function genericEvent(event) {
  const type = String(event.type || "event");
  const name = type.includes(".") ? type.split(".").slice(1).join(".") : type;
  return name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase()) + ".";
}

/** "your"/"Your" for the viewing seat, else "Seat N's"; owner null is the Officer (The Feds). */
export function possessive(seat, view, capital = false) {
  if (view && view.you === seat && seat !== null && seat !== undefined) return capital ? "Your" : "your";
  if (seat === null || seat === undefined) return capital ? "The Officer's" : "the Officer's";
  return `${seatName(seat, view)}'s`;
}

/** "a" or "an" before a word. */
export function article(word) {
  return /^[aeiou]/i.test(String(word)) ? `an ${word}` : `a ${word}`;
}
