// Bonnie and Clyde (Mystery Rummy): ten locations, the Crime Spree car, hands, melds and layoffs.
// Interface (see the shell): renderTable(root, ctx), describeEvent(record, view), stylesheet.

import { Moves, capitalised, describeMatchEvent, genericEvent, h, points, possessive, seatInSentence, seatName, seatTitle, section, svg } from "./common.js";

export const stylesheet = "games/bonnie_clyde.css";

/** The game in a few plain sentences (the lobby and the rules page show them). */
export const howToPlay = [
  "A rummy game on a board of ten towns. On your turn you draw a card (the top of the Case File, or the top of the FBI Files), play what you can, and end by discarding one card.",
  "Three or more Evidence cards of one town make a meld; Evidence of a town someone has melded can be laid off on it. Each meld or layoff lets you look under that town and moves the Crime Spree car.",
  "Bonnie and Clyde hide under the board: whoever finds one under the town where the car stands captures it. Ted Hinton cards let you draw two cards, search the FBI Files or look under any town.",
  "A hand ends when someone plays out their cards or the Case File runs out. Evidence scores 2 points (4 if played where the car stood), a captured fugitive 10, and whoever went out adds the car's position. Hands go on until someone alone has the most points at or above the target.",
];

/** The creation options in words (the contract keeps the machine names). */
export const options = {
  target: {
    label: "Points to win",
    help: "Hands are played until, after a hand, one player alone has the highest total at or above this (10 to 500).",
  },
};

const DEFAULT_NAMES = [
  "Kaufman TX", "Sherman TX", "Joplin MO", "Wellington TX", "Platte City MO",
  "Dexfield Park IA", "Sowers TX", "Eastham TX", "Grapevine TX", "Gibson LA",
];

const PHASES = {
  draw: "draw a card",
  play: "meld, lay off, Ted Hinton or discard",
  look: "take or leave the card looked at",
  move_car: "move the car",
  search_files: "search the FBI Files",
  over: "game over",
};

function names(state, rules) {
  const fromRules = rules && rules.rules && Array.isArray(rules.rules.locations) ? rules.rules.locations : null;
  const byNumber = {};
  (state.locations || []).forEach((l) => (byNumber[l.location] = l.name));
  if (fromRules) fromRules.forEach((l) => (byNumber[l.location] ??= l.name));
  DEFAULT_NAMES.forEach((n, i) => (byNumber[i + 1] ??= n));
  return (loc) => byNumber[loc] || `location ${loc}`;
}

let nameOf = (loc) => DEFAULT_NAMES[loc - 1] || `location ${loc}`;

function cardWords(card) {
  if (!card) return "a hidden card";
  if (card.kind === "evidence") return `Evidence of ${card.location} ${nameOf(card.location)}`;
  if (card.kind === "ted_hinton") return "Ted Hinton";
  return card.kind === "bonnie" ? "Bonnie" : "Clyde";
}

function sameCard(a, b) {
  return a && b && a.kind === b.kind && (a.location ?? null) === (b.location ?? null);
}

/** A card face: evidence in its location's hue with the number and town; Ted Hinton; Bonnie; Clyde. */
function cardFace(card, extra = "") {
  if (!card) return h("span", { class: `bc-card back ${extra}`.trim(), role: "img", "aria-label": "a face-down card", title: "a face-down card" }, h("span", { class: "bc-back-mark" }, "?"));
  const words = cardWords(card);
  if (card.kind === "evidence") {
    return h(
      "span",
      { class: `bc-card evidence l-${card.location} ${extra}`.trim(), role: "img", "aria-label": words, title: words },
      h("span", { class: "bc-num" }, String(card.location)),
      h("span", { class: "bc-town" }, nameOf(card.location)),
      h("span", { class: "bc-kind" }, "Evidence"),
    );
  }
  if (card.kind === "ted_hinton") {
    return h(
      "span",
      { class: `bc-card ted ${extra}`.trim(), role: "img", "aria-label": words, title: words },
      svg("svg", { viewBox: "0 0 20 20", class: "bc-icon", "aria-hidden": "true" }, svg("path", { d: "M10 1 L18 4 V10 Q18 16 10 19 Q2 16 2 10 V4 Z" }), svg("path", { d: "M10 5 L11.5 9 L15.5 9 L12.3 11.3 L13.5 15 L10 12.7 L6.5 15 L7.7 11.3 L4.5 9 L8.5 9 Z", fill: "#ffd54f" })),
      h("span", { class: "bc-town" }, "Ted Hinton"),
    );
  }
  return h(
    "span",
    { class: `bc-card fugitive ${card.kind} ${extra}`.trim(), role: "img", "aria-label": words, title: words },
    svg("svg", { viewBox: "0 0 20 20", class: "bc-icon", "aria-hidden": "true" }, svg("circle", { cx: 10, cy: 6, r: 4 }), svg("path", { d: card.kind === "bonnie" ? "M3 19 L7 10 H13 L17 19 Z" : "M3 19 Q3 10 10 10 Q17 10 17 19 Z" })),
    h("span", { class: "bc-town" }, card.kind === "bonnie" ? "Bonnie" : "Clyde"),
  );
}

function carIcon() {
  return svg(
    "svg",
    { viewBox: "0 0 32 16", class: "bc-car", role: "img", "aria-label": "the Crime Spree car" },
    svg("path", { d: "M2 12 V8 L7 7 L10 3 H22 L26 7 L30 8 V12 Z", fill: "#4e342e" }),
    svg("circle", { cx: 8, cy: 12.5, r: 2.8, fill: "#212121" }),
    svg("circle", { cx: 24, cy: 12.5, r: 2.8, fill: "#212121" }),
    svg("path", { d: "M11 4 H16 V7 H9 Z M17 4 H21.5 L24.5 7 H17 Z", fill: "#bcaaa4" }),
  );
}

function statusLine(state, view) {
  const parts = [`Hand ${state.hand_number}`];
  if (state.phase !== "over") parts.push(`${seatName(state.turn_seat, view)}: ${PHASES[state.phase] || state.phase}`);
  else parts.push(PHASES.over);
  parts.push(`Car at ${state.car} ${nameOf(state.car)}`);
  parts.push(`Target ${state.target}`);
  return h("p", { class: "gt-status" }, parts.join(" · "));
}

function pilesSection(state, moves) {
  const fromCase = moves.filter((m) => m.type === "bc.draw_from_case_file")[0];
  const fromFiles = moves.filter((m) => m.type === "bc.draw_from_files")[0];
  const casePile = h("div", { class: "bc-pile" }, h("span", { class: "gt-label" }, `Case File (${state.case_file_size})`), state.case_file_size ? cardFace(null) : h("span", { class: "gt-empty" }, "empty"));
  const filesPile = h(
    "div",
    { class: "bc-pile" },
    h("span", { class: "gt-label" }, `FBI Files (${state.files_size})`),
    state.files_top ? cardFace(state.files_top) : h("span", { class: "gt-empty" }, "empty"),
  );
  if (fromCase) casePile.append(moves.button(fromCase, "Draw the top card of the Case File", "Draw"));
  if (fromFiles) filesPile.append(moves.button(fromFiles, `Take the FBI Files' top card (${cardWords(state.files_top)})`, "Take"));
  return h("div", { class: "bc-piles" }, casePile, filesPile);
}

/** The ten locations: hidden card, what this seat remembers seeing there, the car, and Ted Hinton's look. */
function boardSection(state, view, moves) {
  const melded = new Set();
  (state.tables || []).forEach((t) => t.sets.forEach((s) => s.kind === "meld" && melded.add(s.location)));
  const spots = state.locations.map((l) => {
    const look = moves.filter((m) => m.type === "bc.ted_hinton_look" && m.location === l.location)[0];
    const here = state.car === l.location;
    return h(
      "li",
      { class: `bc-spot l-${l.location} ${here ? "car-here" : ""} ${state.look_location === l.location ? "looking" : ""}`.trim(), "aria-label": `${l.location} ${l.name}${here ? ", the car is here" : ""}${melded.has(l.location) ? ", melded" : ""}` },
      h("div", { class: "bc-spot-head" }, h("span", { class: "bc-spot-num" }, String(l.location)), h("span", { class: "bc-spot-name" }, l.name)),
      h(
        "div",
        { class: "bc-spot-body" },
        l.has_hidden_card ? (l.seen_card ? cardFace(l.seen_card, "mini seen") : cardFace(null, "tiny")) : h("span", { class: "gt-empty" }, "empty"),
        here ? carIcon() : null,
        melded.has(l.location) ? h("span", { class: "bc-melded", title: "melded: open for layoffs" }, "melded") : null,
      ),
      look ? moves.button(look, `Ted Hinton: look under ${l.location} ${l.name}`, "Look here", "small") : null,
    );
  });
  return section("The board", "bc-board", h("ol", { class: "bc-spots" }, spots), h("p", { class: "gt-note" }, "The car moves up towards 10 after a meld, up or down after a layoff. A card you looked at shows while it stays there."));
}

/** The decision of the moment, with the hand drawn as groups of like cards and what each can do. */
function actionSection(state, view, moves) {
  if (!moves.legal.length) return null;
  const parts = [];
  if (state.phase === "draw") parts.push(h("p", { class: "gt-prompt" }, "Draw: the top card of the Case File, or the FBI Files' top card."), pilesSection(state, moves));
  if (state.phase === "look" && (state.looking_at || moves.filter((m) => m.type === "bc.take_hidden_card" || m.type === "bc.leave_hidden_card").length)) {
    const where = state.look_location ? `${state.look_location} ${nameOf(state.look_location)}` : "the location";
    parts.push(h("p", { class: "gt-prompt" }, `Under ${where} lies:`));
    parts.push(
      h(
        "div",
        { class: "gt-row" },
        state.looking_at ? cardFace(state.looking_at, "big") : null,
        moves.filter((m) => m.type === "bc.take_hidden_card").map((m) => moves.button(m, `Take ${cardWords(state.looking_at)} into your hand`, "Take it")),
        moves.filter((m) => m.type === "bc.leave_hidden_card").map((m) => moves.button(m, `Leave ${cardWords(state.looking_at)} where it is`, "Leave it")),
      ),
    );
  }
  const carMoves = moves.filter((m) => m.type === "bc.move_car");
  if (carMoves.length) {
    parts.push(h("p", { class: "gt-prompt" }, `Move the car from ${state.car} ${nameOf(state.car)}:`));
    parts.push(
      h(
        "div",
        { class: "gt-row" },
        carMoves.map((m) => {
          const to = state.car + (m.direction === "up" ? 1 : -1);
          return moves.button(m, `Move the car ${m.direction} to ${to} ${nameOf(to)}`, `${m.direction === "up" ? "▲ Up" : "▼ Down"} to ${to} ${nameOf(to)}`);
        }),
      ),
    );
  }
  const takes = moves.filter((m) => m.type === "bc.take_from_files");
  if (takes.length || state.files_cards) {
    parts.push(h("p", { class: "gt-prompt" }, "Searching the FBI Files (bottom to top): take one card."));
    if (state.files_cards) parts.push(h("div", { class: "bc-files" }, state.files_cards.map((c) => cardFace(c, "small"))));
    parts.push(h("div", { class: "gt-row" }, takes.map((m) => moves.button(m, `Take ${cardWords(m.card)} from the FBI Files`, [cardFace(m.card, "small"), "Take"], "bc-cardbtn"))));
  }
  if (moves.filter((m) => ["bc.meld", "bc.lay_off", "bc.discard"].includes(m.type)).length) {
    parts.push(h("p", { class: "gt-prompt" }, "Meld 3+ Evidence of a location, lay off on a melded location, then discard one card to end your turn (the buttons are under your cards)."));
  }
  if (hasTedHinton(moves)) parts.push(h("p", { class: "gt-note" }, "You hold a Ted Hinton: you may play it too (below your hand)."));
  if (!parts.length) return null;
  return h("section", { class: "gt-section gt-actions", "aria-label": "Your move" }, h("h3", {}, "Your move"), parts);
}

function hasTedHinton(moves) {
  return moves.filter((m) => m.type.startsWith("bc.ted_hinton_")).length > 0;
}

/**
 * A Ted Hinton's plays, drawn after the hand: the ordinary moves (meld, lay off, discard,
 * under the cards) come first, the card's extras after them (issue 39), its look on the board.
 */
function tedHintonSection(moves) {
  if (!hasTedHinton(moves)) return null;
  const ted = [
    ...moves.filter((m) => m.type === "bc.ted_hinton_draw_two").map((m) => moves.button(m, "Ted Hinton: draw two cards from the Case File", "Draw 2 cards")),
    ...moves.filter((m) => m.type === "bc.ted_hinton_search_files").map((m) => moves.button(m, "Ted Hinton: search the FBI Files and take a card", "Search the FBI Files")),
  ];
  const looks = moves.filter((m) => m.type === "bc.ted_hinton_look").length;
  return section(
    "Play a Ted Hinton",
    "bc-ted",
    ted.length ? h("div", { class: "gt-row" }, ted) : null,
    looks ? h("p", { class: "gt-note" }, ted.length ? "Or look under a location: its Look here button on the board." : "Look under a location: its Look here button on the board.") : null,
  );
}

/** The seat's hand, like cards grouped, each group with its meld / lay off / discard buttons. */
function handSection(state, view, moves) {
  if (!Array.isArray(state.hand)) return null;
  const groups = [];
  for (const card of state.hand) {
    const group = groups.find((g) => sameCard(g.card, card));
    if (group) group.count += 1;
    else groups.push({ card, count: 1 });
  }
  const items = groups.map(({ card, count }) => {
    const buttons = [];
    if (card.kind === "evidence") {
      for (const m of moves.filter((x) => x.type === "bc.meld" && x.location === card.location)) {
        buttons.push(moves.button(m, `Meld ${m.count} Evidence of ${card.location} ${nameOf(card.location)}`, `Meld ${m.count}`, "small"));
      }
      for (const m of moves.filter((x) => x.type === "bc.lay_off" && x.location === card.location)) {
        buttons.push(moves.button(m, `Lay off ${m.count} Evidence of ${card.location} ${nameOf(card.location)}`, `Lay off ${m.count}`, "small"));
      }
    }
    for (const m of moves.filter((x) => x.type === "bc.discard" && sameCard(x.card, card))) {
      buttons.push(moves.button(m, `Discard ${cardWords(card)}`, "Discard", "small bc-discard"));
    }
    // Like cards as one face, with the edges of the others behind it: nothing hides its name.
    const depth = count > 2 ? "stack-3" : count > 1 ? "stack-2" : "";
    return h(
      "li",
      { class: "bc-handgroup", "aria-label": count > 1 ? `${count} × ${cardWords(card)}` : null },
      h("div", { class: "bc-stack" }, cardFace(card, depth), count > 1 ? h("span", { class: "bc-count", "aria-hidden": "true" }, `×${count}`) : null),
      buttons.length ? h("div", { class: "bc-buttons" }, buttons) : null,
    );
  });
  return section(`Your hand (${state.hand.length})`, "bc-hand", state.hand.length ? h("ul", { class: "bc-hand-list" }, items) : h("p", { class: "gt-empty" }, "no cards"));
}

/** A meld or layoff on a seat's table: its town named above small cards in the town's hue,
 * each with its number (a sideways one, 4 points, lies across). */
function setView(set) {
  const cards = Array.from({ length: set.count }, () => cardFace({ kind: "evidence", location: set.location }, `mini ${set.sideways ? "sideways" : ""}`));
  const words = `${set.kind === "meld" ? "meld" : "layoff"} of ${set.count} Evidence of ${set.location} ${nameOf(set.location)}${set.sideways ? ", sideways (4 points each)" : ""}`;
  return h(
    "li",
    { class: `bc-set ${set.kind} l-${set.location}`, "aria-label": words, title: words },
    h("span", { class: "gt-label" }, `${set.kind === "meld" ? "Meld" : "Layoff"}: ${nameOf(set.location)}${set.sideways ? " (sideways)" : ""}`),
    h("span", { class: "bc-set-cards", "aria-hidden": "true" }, cards),
  );
}

function tablePanel(state, view, table) {
  const mine = view && view.you === table.seat;
  const played = table.sets.reduce((sum, s) => sum + s.count * (s.sideways ? 4 : 2), 0) + table.fugitives.length * 10;
  return h(
    "article",
    { class: `gt-seat bc-seat ${mine ? "mine" : ""} ${state.turn_seat === table.seat && state.phase !== "over" ? "turn" : ""}`.trim(), "aria-label": `${seatTitle(table.seat, view)}: total ${state.totals[table.seat]}` },
    h(
      "header",
      {},
      h("strong", {}, seatTitle(table.seat, view)),
      state.dealer === table.seat ? h("span", { class: "bc-dealer" }, "dealer") : null,
      state.winner === table.seat ? h("span", { class: "bc-winner" }, "winner") : null,
      h("span", { class: "gt-score" }, points(state.totals[table.seat])),
    ),
    h("p", { class: "gt-note" }, `${table.hand_size} card${table.hand_size === 1 ? "" : "s"} in hand · ${points(played)} on the table this hand`),
    table.fugitives.length ? h("div", { class: "gt-row" }, table.fugitives.map((c) => cardFace(c, "small"))) : null,
    table.sets.length ? h("ul", { class: "bc-sets" }, table.sets.map(setView)) : h("p", { class: "gt-empty" }, "nothing played"),
  );
}

function lastHandSection(state, view) {
  const r = state.last_hand;
  if (!r) return null;
  const how = r.ending === "went_out" ? `${seatName(r.ended_by_seat, view)} went out` : `the Case File ran out (${seatName(r.ended_by_seat, view)} drew its last card)`;
  const extra = [];
  if (r.bonus) extra.push(`car bonus ${r.bonus}`);
  if (r.shut_out) extra.push("shut out: both Bonnie and Clyde, the others score 0");
  return section(
    `Hand ${r.hand_number} result`,
    "bc-last",
    h("p", {}, `Ended: ${how}, car at ${r.car}${extra.length ? "; " + extra.join("; ") : ""}.`),
    h("p", {}, "Points: " + r.hand_scores.map((p, s) => `${seatName(s, view)} ${p}`).join(", ") + " · Totals: " + r.totals.map((p, s) => `${seatName(s, view)} ${p}`).join(", ")),
  );
}

export function renderTable(root, ctx) {
  const view = ctx.view || {};
  const state = view.state;
  root.replaceChildren();
  if (!state || state.game !== "bonnie_clyde") {
    root.append(h("p", { class: "gt-empty" }, "No Bonnie and Clyde table to show."));
    return;
  }
  nameOf = names(state, ctx.rules);
  const moves = new Moves(ctx, root);
  const tables = [...(state.tables || [])];
  if (typeof view.you === "number") tables.sort((a, b) => (a.seat === view.you ? -1 : b.seat === view.you ? 1 : a.seat - b.seat));
  const actions = actionSection(state, view, moves);
  const hand = handSection(state, view, moves);
  const board = boardSection(state, view, moves);
  const piles = state.phase === "draw" && moves.legal.length ? null : section("Piles", "bc-pilesec", pilesSection(state, moves));
  const ted = tedHintonSection(moves);
  const rest = moves.leftovers((m) => m.type);
  root.append(
    h(
      "div",
      { class: "gt bc" },
      statusLine(state, view),
      actions,
      hand,
      ted,
      rest,
      board,
      piles,
      section("Players", "bc-players", h("div", { class: "gt-seats" }, tables.map((t) => tablePanel(state, view, t)))),
      lastHandSection(state, view),
    ),
  );
}

export function describeEvent(record, view) {
  const e = (record && record.event) || {};
  const text = eventWords(e, view);
  return text === null ? describeMatchEvent(e, view) || genericEvent(e) : capitalised(text);
}

function eventWords(e, view) {
  const who = (seat) => seatInSentence(seat, view);
  const you = (seat) => view && view.you === seat;
  const loc = (l) => `${l} ${nameOf(l)}`;
  switch (e.type) {
    case "bc.game_started":
      return `A game of Bonnie and Clyde began: ${e.seats} seats, first to ${e.target} points.`;
    case "bc.hand_dealt":
      return `Hand ${e.hand_number} was dealt by ${who(e.dealer)} (${(e.hand_sizes || [])[0] ?? "?"} cards each); ${who(e.first_seat)} ${you(e.first_seat) ? "play" : "plays"} first; the FBI Files start with ${cardWords(e.files_top)}.`;
    case "bc.card_drawn":
      return e.source === "files" ? `${who(e.seat)} took ${cardWords(e.card)} from the FBI Files.` : `${who(e.seat)} drew ${e.card ? cardWords(e.card) : "a card"} from the Case File.`;
    case "bc.ted_hinton_played": {
      const what = { draw_two: "to draw two cards", search_files: "to search the FBI Files", look: `to look under ${e.location ? loc(e.location) : "a location"}` }[e.action] || "";
      return `${who(e.seat)} played a Ted Hinton ${what}.`.replace(" .", ".");
    }
    case "bc.ted_hinton_filed":
      return `${possessive(e.seat, view, true)} Ted Hinton went onto the FBI Files.`;
    case "bc.card_taken_from_files":
      return `${who(e.seat)} took ${e.card ? cardWords(e.card) : "a card"} from the FBI Files.`;
    case "bc.hidden_card_seen":
      return `${who(e.seat)} looked under ${loc(e.location)}${e.card ? `: ${cardWords(e.card)}` : ""}.`;
    case "bc.hidden_card_taken":
      return `${who(e.seat)} took ${e.card ? cardWords(e.card) : "the card"} from under ${loc(e.location)}.`;
    case "bc.hidden_card_left":
      return `${who(e.seat)} left the card under ${loc(e.location)}.`;
    case "bc.fugitive_captured":
      return `${who(e.seat)} captured ${cardWords(e.card)} at ${loc(e.location)}!`;
    case "bc.meld_played":
      return `${who(e.seat)} melded ${e.count} Evidence of ${loc(e.location)}${e.sideways ? " sideways (the car is there)" : ""}.`;
    case "bc.laid_off":
      return `${who(e.seat)} laid off ${e.count} Evidence of ${loc(e.location)}${e.sideways ? " sideways (the car is there)" : ""}.`;
    case "bc.car_moved":
      return `${who(e.seat)} moved the car from ${loc(e.from_location)} to ${loc(e.to_location)}.`;
    case "bc.card_discarded":
      return `${who(e.seat)} discarded ${cardWords(e.card)}.`;
    case "bc.hand_scored": {
      const how = e.ending === "went_out" ? `${who(e.ended_by_seat)} went out` : "the Case File ran out";
      return `Hand ${e.hand_number} ended (${how}; car at ${e.car}${e.bonus ? `, bonus ${e.bonus}` : ""}${e.shut_out ? ", shut out" : ""}). Points ${(e.hand_scores || []).join(", ")}; totals ${(e.totals || []).join(", ")}.`;
    }
    case "bc.game_ended":
      return `The game ended: ${who(e.winner)} ${you(e.winner) ? "win" : "wins"} with ${(e.totals || [])[e.winner]} points (totals ${(e.totals || []).join(", ")}).`;
    default:
      return null;
  }
}

