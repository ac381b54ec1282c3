// FBI (Kramer & Rösner): the table drawn from a seat's (or a spectator's) view.
// Interface (see the shell): renderTable(root, ctx), describeEvent(record, view), stylesheet.

import { Moves, capitalised, describeMatchEvent, genericEvent, h, listWords, points, seatInSentence, seatName, seatTitle, section, signed, svg } from "./common.js";

export const stylesheet = "games/fbi.css";

/** The game in a few plain sentences (the lobby and the rules page show them). */
export const howToPlay = [
  "Villains and bystanders come onto the table in five colours. You arrest them with your agents and keep them in your slammer: a villain adds its value to your score, a bystander takes its value off.",
  "Each turn, two new characters per player are placed face up. Then, starting with the holder of the handcuffs, each player may release one card from their slammer as a bid: the highest bid arrests first.",
  "Everyone then picks two agents in secret (the 2× agent doubles the other one). In arrest order, and then back the other way, each player plays one of them: an agent takes the highest character of its colour on the table.",
  "When the deck runs out, each colour's bonus card goes to the player with the highest total in that colour. The highest score wins.",
];

/** The creation options in words (the contract keeps the machine names). */
export const options = {
  variant: {
    label: "Which character an agent arrests",
    values: { base: "The highest of its colour", stacked: "The top of its colour's pile" },
    help: "The base game: an agent takes the highest character of its colour on the table. Stacked piles: each colour forms a pile, and an agent takes the card placed on it last, whatever its value.",
  },
};

const COLOURS = ["red", "yellow", "blue", "green", "black"];
const BONUS = { red: 5, yellow: 4, blue: 3, green: 2, black: 1 };

const PHASES = {
  dealing: "Dealing",
  between_turns: "Between turns",
  placing: "Placing characters",
  release: "Release round",
  agents: "Choosing agents (sealed)",
  arrest: "Arrests",
  over: "Game over",
};

function cardWords(card) {
  if (!card) return "nothing";
  const kind = card.colour === "purple" ? "purple slammer card" : card.value > 0 ? "villain" : "bystander";
  return `${card.colour === "purple" ? "" : card.colour + " "}${kind} ${signed(card.value)}`.trim();
}

function agentWords(agent) {
  return agent === "2x" ? "the 2x agent" : `the ${agent} agent`;
}

/** A character (or purple) card: a coloured rectangle with its value and a villain/bystander mark. */
function cardFace(card, extra = "") {
  const kind = card.colour === "purple" ? "purple" : card.value > 0 ? "villain" : "bystander";
  const mark = svg(
    "svg",
    { class: "fbi-mark", viewBox: "0 0 20 20", "aria-hidden": "true" },
    kind === "villain"
      ? svg("path", { d: "M2 8 Q10 2 18 8 L16 12 Q13 10 10 12 Q7 10 4 12 Z" }) // a bandit's mask
      : kind === "bystander"
        ? svg("circle", { cx: 10, cy: 7, r: 4 })
        : svg("path", { d: "M4 4 H16 V16 H4 Z M7 7 V13 M10 7 V13 M13 7 V13", fill: "none", "stroke-width": 1.6 }),
  );
  if (kind === "bystander") mark.append(svg("path", { d: "M3 19 Q10 9 17 19 Z" }));
  return h(
    "span",
    { class: `fbi-card c-${card.colour} ${kind} ${extra}`.trim(), role: "img", "aria-label": cardWords(card), title: cardWords(card) },
    h("span", { class: "fbi-value" }, signed(card.value)),
    mark,
  );
}

/** An agent token: a badge in its colour with the colour's name, "2×" for the double agent;
 * `hidden` for a back. */
function agentChip(agent, label) {
  if (agent === null) {
    return h("span", { class: "fbi-agent hidden", role: "img", "aria-label": label || "a secret agent", title: label || "a secret agent" }, "?");
  }
  const words = label || agentWords(agent);
  // The colour's name too, so the agents read without colour vision.
  return h("span", { class: `fbi-agent a-${agent}`, role: "img", "aria-label": words, title: words }, agent === "2x" ? "2×" : agent);
}

/** Which table card an agent of this colour would arrest now (docs/house-rules.md#fbi-arrests). */
function arrestTarget(table, colour, variant) {
  const ofColour = table.filter((c) => c.colour === colour);
  if (!ofColour.length) return null;
  if (variant === "stacked") return ofColour[ofColour.length - 1];
  return ofColour.reduce((best, c) => (c.value > best.value ? c : best));
}

function statusLine(state, view) {
  const parts = [];
  if (state.turn) parts.push(`Turn ${state.turn}`);
  parts.push(PHASES[state.phase] || state.phase);
  parts.push(`Deck: ${state.deck_size} card${state.deck_size === 1 ? "" : "s"}`);
  parts.push(`Handcuffs: ${seatName(state.handcuffs_holder, view)}`);
  if (state.variant === "stacked") parts.push("Stacked piles");
  return h("p", { class: "gt-status" }, parts.join(" · "));
}

function tableSection(state) {
  const columns = COLOURS.map((colour) => {
    const cards = state.table.filter((c) => c.colour === colour);
    const target = state.phase === "over" ? null : arrestTarget(state.table, colour, state.variant);
    return h(
      "div",
      { class: `fbi-pile p-${colour}`, role: "group", "aria-label": `${colour}: ${cards.length ? cards.map((c) => signed(c.value)).join(" ") : "none"}` },
      h("div", { class: "fbi-pile-head" }, h("span", { class: `fbi-dot c-${colour}` }), colour, h("small", {}, ` bonus ${BONUS[colour]}`)),
      h(
        "div",
        { class: `fbi-pile-cards ${state.variant === "stacked" ? "stacked" : ""}` },
        cards.length ? cards.map((c) => cardFace(c, c === target ? "next" : "")) : h("span", { class: "gt-empty" }, "none"),
      ),
    );
  });
  const note = state.variant === "stacked" ? "An agent arrests the top card of its pile (outlined)." : "An agent arrests the highest card of its colour (outlined).";
  return section("Characters on the table", "fbi-table", h("div", { class: "fbi-piles" }, columns), state.phase === "over" ? null : h("p", { class: "gt-note" }, note));
}

function turnSection(state, view) {
  const items = [];
  if (state.releases.length) {
    items.push(
      h(
        "div",
        { class: "fbi-releases" },
        h("span", { class: "gt-label" }, "Released this turn: "),
        state.releases.map((r) =>
          h("span", { class: "fbi-release" }, seatName(r.seat, view) + " ", r.card ? cardFace(r.card, "small") : h("span", { class: "gt-empty" }, "nothing")),
        ),
      ),
    );
  }
  if (state.arrest_sequence.length) {
    items.push(
      h(
        "div",
        { class: "fbi-sequence" },
        h("span", { class: "gt-label" }, "Arrest turns: "),
        h(
          "ol",
          { class: "fbi-seq" },
          state.arrest_sequence.map((seat, i) =>
            h(
              "li",
              {
                class: i < state.arrest_index ? "done" : i === state.arrest_index && state.phase === "arrest" ? "now" : "",
                "aria-current": i === state.arrest_index && state.phase === "arrest" ? "step" : null,
              },
              seatName(seat, view),
            ),
          ),
        ),
      ),
    );
  }
  if (!items.length) return null;
  return section("This turn", "fbi-turn", items);
}

function seatPanel(state, view, seat) {
  const mine = view && view.you === seat;
  const held = state.agents[seat];
  const left = state.agents_left[seat];
  const agents = [];
  if (Array.isArray(held)) held.forEach((a) => agents.push(agentChip(a, `your ${a} agent`)));
  else for (let i = 0; i < left; i++) agents.push(agentChip(null));
  const played = state.agents_played[seat] || [];
  const bonus = (state.bonuses || []).filter((b) => b.seat === seat);
  const slammer = state.slammers[seat] || [];
  return h(
    "article",
    { class: `gt-seat fbi-seat ${mine ? "mine" : ""}`, "aria-label": `${seatTitle(seat, view)}: score ${state.scores[seat]}` },
    h(
      "header",
      {},
      h("strong", {}, seatTitle(seat, view)),
      state.handcuffs_holder === seat ? h("span", { class: "fbi-cuffs", title: "holds the handcuffs", role: "img", "aria-label": "holds the handcuffs" }, handcuffs()) : null,
      h("span", { class: "gt-score" }, points(state.scores[seat])),
    ),
    agents.length || played.length
      ? h(
          "div",
          { class: "fbi-agents" },
          agents.length ? [h("span", { class: "gt-label" }, "Agents: "), agents] : null,
          played.length ? [h("span", { class: "gt-label" }, " Played: "), played.map((a) => agentChip(a, `played the ${a} agent`))] : null,
        )
      : null,
    h(
      "div",
      { class: "fbi-slammer", role: "group", "aria-label": `slammer: ${slammer.length} cards` },
      slammer.length ? slammer.map((c) => cardFace(c, "small")) : h("span", { class: "gt-empty" }, "empty slammer"),
    ),
    bonus.length ? h("p", { class: "fbi-bonus" }, "Bonus: " + bonus.map((b) => `${b.colour} ${signed(b.value)}`).join(", ")) : null,
  );
}

function handcuffs() {
  return svg(
    "svg",
    { viewBox: "0 0 24 12", width: 24, height: 12, "aria-hidden": "true" },
    svg("circle", { cx: 6, cy: 6, r: 4.5, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
    svg("circle", { cx: 18, cy: 6, r: 4.5, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
    svg("path", { d: "M10.5 6 H13.5", stroke: "currentColor", "stroke-width": 2 }),
  );
}

function actionSection(state, view, moves) {
  if (!moves.legal.length) return null;
  const parts = [];
  // Release: a card of your slammer, or nothing.
  const releases = moves.filter((m) => m.type === "fbi.release");
  const none = moves.filter((m) => m.type === "fbi.release_none");
  if (releases.length || none.length) {
    const slammer = state.slammers[view.you] || [];
    parts.push(h("p", { class: "gt-prompt" }, "Release one card of your slammer (its value is your bid for the arrest order), or none (bid 0):"));
    parts.push(
      h(
        "div",
        { class: "gt-row" },
        releases.map((m) => {
          const c = slammer.find((x) => x.id === m.card_id) || { id: m.card_id, colour: "purple", value: 0 };
          return moves.button(m, `Release ${cardWords(c)}`, cardFace(c), "fbi-cardbtn");
        }),
        none.map((m) => moves.button(m, "Release nothing", "Release nothing")),
      ),
    );
  }
  // Agent selection (sealed): one button per legal pair.
  const pairs = moves.filter((m) => m.type === "fbi.select_agents");
  if (pairs.length) {
    parts.push(h("p", { class: "gt-prompt" }, "Choose two agents for this turn (kept secret; 2× doubles the other one):"));
    parts.push(
      h(
        "div",
        { class: "gt-row fbi-pairs" },
        pairs.map((m) => moves.button(m, `Choose ${agentWords(m.first)} and ${agentWords(m.second)}`, [agentChip(m.first), agentChip(m.second)], "fbi-pair")),
      ),
    );
  }
  // Arrest: play one of the agents you hold.
  const uses = moves.filter((m) => m.type === "fbi.use_agent");
  if (uses.length) {
    parts.push(h("p", { class: "gt-prompt" }, "Play one of your agents:"));
    parts.push(
      h(
        "div",
        { class: "gt-row" },
        uses.map((m) => {
          const target = arrestTarget(state.table, m.colour, state.variant);
          const label = target ? `Play the ${m.colour} agent: arrest ${cardWords(target)}` : `Play the ${m.colour} agent: no ${m.colour} character left, it passes`;
          return moves.button(
            m,
            label,
            [agentChip(m.colour), h("span", {}, target ? " arrests " : " passes"), target ? cardFace(target, "small") : null],
            "fbi-use",
          );
        }),
      ),
    );
  }
  const rest = moves.leftovers((m) => m.type);
  return h("section", { class: "gt-section gt-actions", "aria-label": "Your move" }, h("h3", {}, "Your move"), parts, rest);
}

function finalSection(state, view) {
  if (state.phase !== "over" || !state.bonuses.length) return null;
  return section(
    "Bonus cards",
    "fbi-bonuses",
    h(
      "ul",
      { class: "gt-row" },
      state.bonuses.map((b) => h("li", { class: "fbi-bonuscard" }, h("span", { class: `fbi-dot c-${b.colour}` }), `${b.colour[0].toUpperCase()}${b.colour.slice(1)} ${signed(b.value)}: ${b.seat === null ? "nobody" : seatName(b.seat, view)}`)),
    ),
  );
}

export function renderTable(root, ctx) {
  const view = ctx.view || {};
  const state = view.state;
  root.replaceChildren();
  if (!state || state.game !== "fbi") {
    root.append(h("p", { class: "gt-empty" }, "No FBI table to show."));
    return;
  }
  const moves = new Moves(ctx, root);
  const seats = [];
  for (let s = 0; s < state.seats; s++) seats.push(s);
  // The viewing seat first, then the others in seat order.
  const order = typeof view.you === "number" ? [view.you, ...seats.filter((s) => s !== view.you)] : seats;
  root.append(
    h(
      "div",
      { class: "gt fbi" },
      statusLine(state, view),
      actionSection(state, view, moves),
      tableSection(state),
      turnSection(state, view),
      section("Players", "fbi-seats", h("div", { class: "gt-seats" }, order.map((s) => seatPanel(state, view, s)))),
      finalSection(state, view),
      state.released.length ? h("p", { class: "gt-note gt-foot" }, `${state.released.length} card${state.released.length === 1 ? "" : "s"} released out of the game so far.`) : null,
    ),
  );
}

/** A move in words (used for revealed sealed moves). */
function moveWords(move) {
  if (move.type === "fbi.select_agents") return `${agentWords(move.first)} and ${agentWords(move.second)}`;
  if (move.type === "fbi.use_agent") return `play the ${move.colour} agent`;
  if (move.type === "fbi.release_none") return "release nothing";
  return null;
}

export function describeEvent(record, view) {
  const event = (record && record.event) || {};
  const text = eventWords(event, view);
  return text === null ? describeMatchEvent(event, view, moveWords) || genericEvent(event) : capitalised(text);
}

function eventWords(event, view) {
  const who = (seat) => seatInSentence(seat, view);
  switch (event.type) {
    case "fbi.game_started":
      return `An FBI game began with ${event.seats} seats${event.variant === "stacked" ? " (stacked piles)" : ""}.`;
    case "fbi.purple_cards_dealt":
      return "Each slammer got a purple +k card and its matching −k card: " +
        (event.slammers || []).map((cards, seat) => `${who(seat)} ${cards.map((c) => signed(c.value)).join("/")}`).join(", ") + ".";
    case "fbi.deck_shuffled":
      return `The character deck (${event.size} cards) was shuffled.`;
    case "fbi.turn_started":
      return `Turn ${event.turn} began; ${who(event.handcuffs_holder)} ${who(event.handcuffs_holder) === "you" ? "hold" : "holds"} the handcuffs.`;
    case "fbi.cards_placed":
      return `${(event.cards || []).length} characters were placed on the table: ${(event.cards || []).map(cardWords).join(", ")}.`;
    case "fbi.card_released":
      return `${who(event.seat)} released ${cardWords(event.card)}.`;
    case "fbi.nothing_released":
      return `${who(event.seat)} released nothing${event.automatic ? " (empty slammer)" : ""}.`;
    case "fbi.arrest_order_determined":
      return `Arrest order: ${listWords((event.order || []).map(who))}.`;
    case "fbi.agents_selected":
      return event.first ? `${who(event.seat)} chose ${agentWords(event.first)} and ${agentWords(event.second)}.` : `${who(event.seat)} chose two agents (secret until played).`;
    case "fbi.character_arrested":
      return `${who(event.seat)} played the ${event.agent} agent and arrested ${cardWords(event.card)}.`;
    case "fbi.agent_passed":
      return `${who(event.seat)} played the ${event.agent} agent: no ${event.agent} character left, no arrest.`;
    case "fbi.game_ended": {
      const bonuses = (event.bonuses || []).filter((b) => b.seat !== null).map((b) => `${b.colour} to ${who(b.seat)}`);
      return `The deck ran out. Bonus cards: ${bonuses.length ? bonuses.join(", ") : "none awarded"}. Scores ${(event.scores || []).join(", ")}; ${listWords((event.winners || []).map(who))} won.`;
    }
    default:
      return null;
  }
}
