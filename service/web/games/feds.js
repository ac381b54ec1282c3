// The Feds (Steve Finn): four locations with criminals, moles and fields of agents.
// Interface (see the shell): renderTable(root, ctx), describeEvent(record, view), stylesheet.

import { Moves, article, capitalised, describeMatchEvent, genericEvent, h, listWords, points, possessive, seatInSentence, seatName, seatTitle, section, svg } from "./common.js";

export const stylesheet = "games/feds.css";

const CITY_NAMES = { chicago: "Chicago", detroit: "Detroit", "new-orleans": "New Orleans" };

function cityName(city) {
  return CITY_NAMES[city] || city;
}

/** The game in a few plain sentences (the lobby and the rules page show them). */
export const howToPlay = [
  "Four locations hold criminals in five colours. Over seven rounds you send agents to them; at the end the strongest players at each location take its criminals, which score by colour.",
  "Each round everyone chooses, in secret, one agent card from their hand and a location for it. Then, starting with the holder of the badge, each agent goes in face down as that location's mole, and the mole it replaces turns face up and joins the location's agents.",
  "Agents have a strength from 1 to 6. Three special agents also have a power, used once when they turn face up: Infiltrate (flip or look at another mole), Redeploy (move one of your agents) and Patrol (move, arrest or bring in one criminal). The city card decides the details. A location with seven or more agents is closed to new choices.",
  "After the last round each location is busted: the strongest player there takes every criminal of one colour, then the next strongest, and so on. With two players, a neutral Officer plays along and takes criminals too.",
];

/** The house city card's description, from the rules data. */
function cityHelp(city, rules) {
  const cards = (rules && rules.rules && rules.rules.city_cards) || [];
  const card = cards.find((c) => c.city === city);
  return card ? card.description.replace(/^House city card\.\s*/, "") : "";
}

/** The creation options in words (the contract keeps the machine names). */
export const options = {
  city: {
    label: "City card",
    values: CITY_NAMES,
    help: cityHelp,
  },
  sirens: {
    label: "A siren token on every location",
    help: "One siren token per location: when a location gets as many agents as its siren shows, the strongest there arrest a few criminals at once. New Orleans has sirens already, so it cannot take this too.",
  },
};

const COLOURS = ["pink", "blue", "lime", "orange", "gray"];
const LOCATION_NAMES = { club: "Club", docks: "Docks", motel: "Motel", warehouse: "Warehouse" };
const STRENGTH = { infiltrate: 1, redeploy: 1, patrol: 2, "plain-3": 3, "plain-4": 4, "plain-5": 5, "plain-6": 6 };
const PHASES = { choose: "Step 1: choose an agent (sealed)", deploy: "Step 2: deploy", bust: "Arresting criminals (bust)", over: "Game over" };

function place(location) {
  return LOCATION_NAMES[location] || location;
}

function agentName(agent) {
  if (!agent) return "a face-down agent";
  if (agent.startsWith("plain-")) return `agent ${agent.slice(6)}`;
  return `${agent[0].toUpperCase()}${agent.slice(1)} (${STRENGTH[agent]})`;
}

function ownerName(owner, view) {
  return owner === null || owner === undefined ? "the Officer" : seatName(owner, view);
}

/** An owner inside a sentence: "you" for the viewing seat. */
function ownerInSentence(owner, view) {
  return owner === null || owner === undefined ? "the Officer" : seatInSentence(owner, view);
}

function ownerClass(owner) {
  return owner === null || owner === undefined ? "o-officer" : `o-${owner}`;
}

function criminalsWords(criminals) {
  const parts = COLOURS.filter((c) => criminals && criminals[c]).map((c) => `${criminals[c]} ${c}`);
  return parts.length ? listWords(parts) : "no criminals";
}

function powerIcon(power) {
  const box = { class: "feds-power", viewBox: "0 0 20 20", "aria-hidden": "true" };
  if (power === "infiltrate") {
    return svg("svg", box, svg("path", { d: "M1 10 Q10 2 19 10 Q10 18 1 10 Z", fill: "none", stroke: "currentColor", "stroke-width": 1.8 }), svg("circle", { cx: 10, cy: 10, r: 3, fill: "currentColor" }));
  }
  if (power === "redeploy") {
    return svg("svg", box, svg("path", { d: "M2 7 H15 M11 3 L15 7 L11 11 M18 13 H5 M9 9 L5 13 L9 17", fill: "none", stroke: "currentColor", "stroke-width": 1.8 }));
  }
  if (power === "patrol") {
    return svg("svg", box, svg("path", { d: "M2 13 V10 L5 6 H15 L18 10 V13 Z", fill: "currentColor" }), svg("circle", { cx: 6, cy: 14.5, r: 2, fill: "currentColor" }), svg("circle", { cx: 14, cy: 14.5, r: 2, fill: "currentColor" }), svg("rect", { x: 8.5, y: 3, width: 3, height: 3, fill: "#e53935" }));
  }
  return null;
}

/** An agent card: the owner's colour, its strength, its power's icon; `back` for a face-down mole. */
function agentCard(agent, owner, view, extra = "") {
  if (!agent) {
    const words = `${possessive(owner, view)} face-down mole`;
    return h("span", { class: `feds-card back ${ownerClass(owner)} ${extra}`.trim(), role: "img", "aria-label": words, title: words }, h("span", { class: "feds-strength" }, "?"));
  }
  const power = agent.startsWith("plain-") ? null : agent;
  const words = `${possessive(owner, view)} ${agentName(agent)}`;
  return h(
    "span",
    { class: `feds-card ${ownerClass(owner)} ${extra}`.trim(), role: "img", "aria-label": words, title: words },
    h("span", { class: "feds-strength" }, String(STRENGTH[agent] ?? "?")),
    power ? powerIcon(power) : null,
    power ? h("span", { class: "feds-cardname" }, power[0].toUpperCase() + power.slice(1)) : null,
  );
}

/** One criminal figure (a pawn in its colour) with a count. */
function criminal(colour, count, small = false) {
  const words = `${count} ${colour}`;
  return h(
    "span",
    { class: `feds-crim k-${colour} ${small ? "small" : ""}`.trim(), role: "img", "aria-label": words, title: words },
    svg("svg", { viewBox: "0 0 16 20", "aria-hidden": "true" }, svg("circle", { cx: 8, cy: 5, r: 4 }), svg("path", { d: "M1 19 Q1 10 8 10 Q15 10 15 19 Z" })),
    h("span", { class: "feds-count" }, `×${count}`),
  );
}

function criminalsRow(criminals, small = false) {
  const present = COLOURS.filter((c) => criminals && criminals[c]);
  if (!present.length) return h("span", { class: "gt-empty" }, "none");
  return h("span", { class: "feds-crims" }, present.map((c) => criminal(c, criminals[c], small)));
}

function token(kind, value, faceUp = true) {
  const words = kind === "siren" ? `siren token ${value}: a mini-bust when the field holds ${value} agents` : faceUp ? `utility token worth ${value}` : "a face-down utility token";
  const icon = kind === "siren"
    ? svg("svg", { viewBox: "0 0 16 16", "aria-hidden": "true" }, svg("path", { d: "M3 13 V9 A5 5 0 0 1 13 9 V13 Z", fill: "#e53935" }), svg("rect", { x: 1, y: 13, width: 14, height: 2.5, fill: "#555" }))
    : svg("svg", { viewBox: "0 0 16 16", "aria-hidden": "true" }, svg("path", { d: "M8 1 L10 6 L15 6 L11 9.5 L12.5 15 L8 11.5 L3.5 15 L5 9.5 L1 6 L6 6 Z", fill: "#f9a825" }));
  return h("span", { class: `feds-token ${kind}`, role: "img", "aria-label": words, title: words }, icon, kind === "siren" || faceUp ? String(value) : "?");
}

// Seven field agents close a location, decided at step 3 of each round (a field may hold
// more during step 2, or fewer while closed): the count in words with what it means, not "9/7".
const CLOSING = 7;

function fieldWords(spot) {
  const n = spot.field.length;
  const count = `Field: ${agentCount(n)}`;
  if (spot.closed && n >= CLOSING) return `${count}: closed (${CLOSING} or more close a location)`;
  if (spot.closed) return `${count}: closed until step 3 (below ${CLOSING} it re-opens)`;
  if (n >= CLOSING) return `${count}: ${CLOSING} or more, it closes at step 3`;
  return `${count} (${CLOSING} close the location)`;
}

function agentCount(n) {
  return `${n} agent${n === 1 ? "" : "s"}`;
}

function statusLine(state, view) {
  const parts = [`Round ${Math.min(state.round, state.rounds)} of ${state.rounds}`, PHASES[state.phase] || state.phase];
  parts.push(`Badge: ${seatName(state.badge, view)}`);
  parts.push(`City: ${cityName(state.city)}${state.sirens && state.city !== "new-orleans" ? " + sirens" : ""}`);
  return h("p", { class: "gt-status" }, parts.join(" · "));
}

function locationRow(state, view, spot, moves, power) {
  const bust = state.bust && state.bust.location === spot.location && state.phase !== "over";
  const pieces = [];
  pieces.push(
    h(
      "div",
      { class: "feds-loc-head" },
      h("strong", {}, place(spot.location)),
      spot.closed ? h("span", { class: "feds-stop", role: "img", "aria-label": "closed", title: `closed: ${CLOSING} or more field agents` }, "STOP") : null,
      spot.siren !== null && spot.siren !== undefined ? token("siren", spot.siren) : null,
      spot.utility_token ? token("utility", spot.utility_token.value, spot.utility_token.face_up) : null,
      state.officer && state.officer.car === spot.location ? h("span", { class: "feds-car", role: "img", "aria-label": "the police car is here", title: "the police car" }, powerIcon("patrol")) : null,
      bust ? h("span", { class: "feds-busting" }, "being busted") : null,
    ),
  );
  pieces.push(h("div", { class: "feds-crim-line" }, criminalsRow(spot.criminals)));
  const mole = spot.mole;
  let moleNode = h("span", { class: "gt-empty" }, "no mole");
  if (mole) {
    const seen = mole.seen_by && mole.seen_by.length ? h("small", { class: "feds-seen" }, `seen by ${seatsList(mole.seen_by, view)}`) : null;
    moleNode = h("span", { class: "feds-mole" }, agentCard(mole.agent, mole.owner, view, mole.face_up ? "" : "facedown"), seen);
  }
  const field = spot.field.map((a, i) => agentCard(a.agent, a.owner, view, i === spot.field.length - 1 ? "rookie" : ""));
  pieces.push(
    h(
      "div",
      { class: "feds-board" },
      h("div", { class: "feds-hideout", "aria-label": "hideout" }, h("span", { class: "gt-label" }, "Mole"), moleNode),
      h(
        "div",
        { class: "feds-field", role: "group", "aria-label": `field: ${agentCount(spot.field.length)}` },
        h("span", { class: "gt-label" }, fieldWords(spot)),
        h("div", { class: "feds-field-cards" }, field.length ? field : h("span", { class: "gt-empty" }, "empty")),
      ),
    ),
  );
  const strengths = fieldStrengths(spot);
  if (strengths.length) {
    pieces.push(h("p", { class: "gt-note" }, "Strength here: " + strengths.map(([owner, total]) => `${ownerName(owner, view)} ${total}`).join(", ")));
  }
  const controls = power ? power(spot.location) : null;
  return h("article", { class: `feds-location ${spot.closed ? "closed" : ""} ${bust ? "busting" : ""}`.trim(), "aria-label": place(spot.location) }, pieces, controls);
}

function seatsList(seats, view) {
  return listWords(seats.map((s) => seatName(s, view)));
}

/** Each owner's field strength at a location, strongest first (public information). */
function fieldStrengths(spot) {
  const totals = new Map();
  for (const a of spot.field) totals.set(a.owner, (totals.get(a.owner) || 0) + a.strength);
  return [...totals.entries()].sort((x, y) => y[1] - x[1]);
}

function playerPanel(state, view, player) {
  const mine = view && view.you === player.seat;
  const hand = Array.isArray(player.hand)
    ? player.hand.map((a) => agentCard(a, player.seat, view, "small"))
    : Array.from({ length: player.hand_size }, () => h("span", { class: `feds-card back small ${ownerClass(player.seat)}`, "aria-hidden": "true" }));
  return h(
    "article",
    { class: `gt-seat feds-seat ${ownerClass(player.seat)} ${mine ? "mine" : ""}`.trim(), "aria-label": seatTitle(player.seat, view) },
    h(
      "header",
      {},
      h("span", { class: `feds-swatch ${ownerClass(player.seat)}` }),
      h("strong", {}, seatTitle(player.seat, view)),
      state.badge === player.seat ? h("span", { class: "feds-badge", title: "holds the badge", role: "img", "aria-label": "holds the badge" }, "★ badge") : null,
      player.score !== null && player.score !== undefined ? h("span", { class: "gt-score" }, points(player.score)) : null,
    ),
    h("div", { class: "feds-hand" }, h("span", { class: "gt-label" }, `Hand (${player.hand_size}): `), hand),
    player.chosen_location
      ? h("p", { class: "feds-chosen" }, `Chosen: ${player.chosen_agent ? agentName(player.chosen_agent) + " to " : ""}${place(player.chosen_location)}`)
      : null,
    h("div", { class: "feds-jail" }, h("span", { class: "gt-label" }, "Jail: "), criminalsRow(player.jail, true)),
    player.utility_tokens.length ? h("div", { class: "feds-tokens" }, h("span", { class: "gt-label" }, "Tokens: "), player.utility_tokens.map((v) => token("utility", v))) : null,
  );
}

function officerPanel(state, view) {
  const o = state.officer;
  if (!o) return null;
  return h(
    "article",
    { class: "gt-seat feds-seat o-officer", "aria-label": "the Officer" },
    h("header", {}, h("span", { class: "feds-swatch o-officer" }), h("strong", {}, "The Officer (not scored)")),
    h("p", { class: "gt-note" }, `Police car at ${place(o.car)}; ${o.deck_size} cards left in its deck${o.deployed_this_round ? "; deployed this round" : ""}.`),
    h("div", { class: "feds-jail" }, h("span", { class: "gt-label" }, "Jail: "), criminalsRow(o.jail, true)),
  );
}

/** The buttons of the current decision; power buttons that belong to a location go on its row. */
function actions(state, view, moves) {
  const top = [];
  const perLocation = new Map(); // location -> [nodes]
  const atLocation = (loc, node) => {
    if (!node) return;
    if (!perLocation.has(loc)) perLocation.set(loc, []);
    perLocation.get(loc).push(node);
  };
  // Step 1: an agent from the hand and an open location; drawn as each hand card with its locations.
  const choices = moves.filter((m) => m.type === "feds.choose_agent");
  if (choices.length) {
    const agents = [...new Set(choices.map((m) => m.agent))];
    top.push(h("p", { class: "gt-prompt" }, "Choose an agent from your hand and the location it goes to (sealed until everyone has chosen):"));
    top.push(
      h(
        "div",
        { class: "feds-choose" },
        agents.map((agent) =>
          h(
            "div",
            { class: "feds-choice", role: "group", "aria-label": agentName(agent) },
            agentCard(agent, view.you, view),
            h(
              "div",
              { class: "feds-choice-locs" },
              choices.filter((m) => m.agent === agent).map((m) => moves.button(m, `Send ${agentName(agent)} to ${place(m.location)}`, place(m.location), "small")),
            ),
          ),
        ),
      ),
    );
  }
  // A flipped special agent's power.
  const activation = state.activations && state.activations.length ? state.activations[state.activations.length - 1] : null;
  if (activation && activation.seat === view.you && moves.legal.length) {
    top.push(
      h(
        "p",
        { class: "gt-prompt" },
        `${activation.owner === view.you ? "Your" : ownerName(activation.owner, view) + "'s"} ${agentName(activation.agent)} was flipped at ${place(activation.location)}: use its power or decline.`,
      ),
    );
  }
  const row = [];
  for (const m of moves.filter((x) => x.type === "feds.flip_mole")) atLocation(m.location, moves.button(m, `Infiltrate: flip the mole at ${place(m.location)}`, "Flip this mole"));
  for (const m of moves.filter((x) => x.type === "feds.peek_at_mole")) atLocation(m.location, moves.button(m, `Infiltrate: look at the mole at ${place(m.location)}`, "Look at this mole"));
  const redeploys = moves.filter((m) => m.type === "feds.redeploy_agent");
  if (redeploys.length) {
    const byAgent = [...new Set(redeploys.map((m) => m.agent))];
    row.push(
      h(
        "div",
        { class: "feds-group" },
        h("span", { class: "gt-label" }, "Redeploy one of your field agents:"),
        byAgent.map((agent) => {
          const from = state.locations.find((l) => l.field.some((a) => a.agent === agent && a.owner === view.you));
          return h(
            "div",
            { class: "gt-row feds-subrow" },
            agentCard(agent, view.you, view, "small"),
            h("span", {}, from ? `from ${place(from.location)} to` : "to"),
            redeploys.filter((m) => m.agent === agent).map((m) => moves.button(m, `Move your ${agentName(agent)}${from ? ` from ${place(from.location)}` : ""} to ${place(m.to_location)}`, place(m.to_location), "small")),
          );
        }),
      ),
    );
  }
  const swaps = moves.filter((m) => m.type === "feds.swap_sirens");
  if (swaps.length) {
    row.push(
      h(
        "div",
        { class: "feds-group" },
        h("span", { class: "gt-label" }, "Or swap two siren tokens:"),
        h("div", { class: "gt-row" }, swaps.map((m) => moves.button(m, `Swap the sirens of ${place(m.first)} and ${place(m.second)}`, `${place(m.first)} ⇄ ${place(m.second)}`, "small"))),
      ),
    );
  }
  const moveCrim = moves.filter((m) => m.type === "feds.move_criminal");
  if (moveCrim.length) {
    row.push(
      h(
        "div",
        { class: "feds-group" },
        h("span", { class: "gt-label" }, `Patrol: move one criminal from ${activation ? place(activation.location) : "here"} to a neighbouring location:`),
        [...new Set(moveCrim.map((m) => m.colour))].map((colour) =>
          h(
            "div",
            { class: "gt-row feds-subrow" },
            criminal(colour, 1, true),
            h("span", {}, "to"),
            moveCrim.filter((m) => m.colour === colour).map((m) => moves.button(m, `Move ${article(colour)} criminal to ${place(m.to_location)}`, place(m.to_location), "small")),
          ),
        ),
      ),
    );
  }
  const arrestOne = moves.filter((m) => m.type === "feds.arrest_criminal");
  if (arrestOne.length) {
    row.push(
      h(
        "div",
        { class: "feds-group" },
        h("span", { class: "gt-label" }, "Patrol: arrest one criminal here:"),
        h("div", { class: "gt-row" }, arrestOne.map((m) => moves.button(m, `Arrest ${article(m.colour)} criminal`, [criminal(m.colour, 1, true), m.colour]))),
      ),
    );
  }
  for (const m of moves.filter((x) => x.type === "feds.draw_criminal")) row.push(moves.button(m, "Patrol: draw a criminal blind from the bag onto this location", "Draw a criminal from the bag"));
  // Mini-bust: one criminal of each listed colour.
  const mini = moves.filter((m) => m.type === "feds.arrest_criminals");
  if (mini.length) {
    const where = state.siren_arrest ? place(state.siren_arrest.location) : "the siren's location";
    row.push(h("p", { class: "gt-prompt" }, `Mini-bust at ${where}: choose the criminals you arrest:`));
    row.push(
      h(
        "div",
        { class: "gt-row" },
        mini.map((m) =>
          moves.button(
            m,
            m.colours.length ? `Arrest one ${listWords(m.colours)} criminal` : "Arrest nothing",
            m.colours.length ? m.colours.map((c) => [criminal(c, 1, true), h("span", {}, c)]) : "nothing",
            "feds-mini",
          ),
        ),
      ),
    );
  }
  // Bust: every criminal of one colour.
  const busts = moves.filter((m) => m.type === "feds.arrest_colour");
  if (busts.length) {
    const spot = state.bust ? state.locations.find((l) => l.location === state.bust.location) : null;
    row.push(h("p", { class: "gt-prompt" }, `Bust at ${spot ? place(spot.location) : "this location"}: take every criminal of one colour:`));
    row.push(
      h(
        "div",
        { class: "gt-row" },
        busts.map((m) => {
          const n = spot ? spot.criminals[m.colour] : 0;
          const label = n === 1 ? `Arrest the one ${m.colour} criminal` : `Arrest all ${n} ${m.colour} criminals`;
          return moves.button(m, label, [criminal(m.colour, n), m.colour], "feds-bust");
        }),
      ),
    );
  }
  for (const m of moves.filter((x) => x.type === "feds.decline_power")) row.push(moves.button(m, "Decline the power", "Decline the power", "feds-decline"));
  if (row.length) top.push(h("div", { class: "feds-actions-row" }, row));
  if (perLocation.size) top.push(h("p", { class: "gt-note" }, "Pick a location below."));
  const hasAny = moves.legal.length > 0;
  return { top: hasAny ? top : [], perLocation };
}

function bustSection(state, view) {
  if (!state.bust || state.phase !== "bust") return null;
  const order = state.bust.order.map((owner, i) =>
    h("li", { class: i === state.bust.next_in_order ? "now" : "", "aria-current": i === state.bust.next_in_order ? "step" : null }, ownerName(owner, view)),
  );
  return section(`Bust at ${place(state.bust.location)}`, "feds-bustinfo", h("ol", { class: "feds-order" }, order));
}

function sirenSection(state, view) {
  if (!state.siren_arrest) return null;
  return section(
    `Mini-bust at ${place(state.siren_arrest.location)}`,
    "feds-bustinfo",
    h("ul", { class: "gt-row" }, state.siren_arrest.shares.map((s) => h("li", {}, `${ownerName(s.owner, view)}: ${s.criminals} criminal${s.criminals === 1 ? "" : "s"}`))),
  );
}

export function renderTable(root, ctx) {
  const view = ctx.view || {};
  const state = view.state;
  root.replaceChildren();
  if (!state || state.game !== "feds") {
    root.append(h("p", { class: "gt-empty" }, "No table of The Feds to show."));
    return;
  }
  const moves = new Moves(ctx, root);
  const { top, perLocation } = actions(state, view, moves);
  const players = [...state.players];
  if (typeof view.you === "number") players.sort((a, b) => (a.seat === view.you ? -1 : b.seat === view.you ? 1 : a.seat - b.seat));
  const leftovers = moves.leftovers((m) => (ctx.rules && ctx.rules.rules && ctx.rules.rules.commands ? describeCommand(ctx.rules, m) : m.type));
  root.append(
    h(
      "div",
      { class: "gt feds" },
      statusLine(state, view),
      top.length || leftovers ? h("section", { class: "gt-section gt-actions", "aria-label": "Your move" }, h("h3", {}, "Your move"), top, leftovers) : null,
      bustSection(state, view),
      sirenSection(state, view),
      section(
        "Locations",
        "feds-locations",
        state.locations.map((spot) => locationRow(state, view, spot, moves, (loc) => (perLocation.has(loc) ? h("div", { class: "gt-row feds-loc-actions" }, perLocation.get(loc)) : null))),
      ),
      section("Players", "feds-players", h("div", { class: "gt-seats" }, players.map((p) => playerPanel(state, view, p)), officerPanel(state, view))),
      h("p", { class: "gt-note gt-foot" }, `In the bag: ${criminalsWords(state.bag)}.`),
    ),
  );
}

function describeCommand(rules, move) {
  const command = (rules.rules.commands || []).find((c) => c.type === move.type);
  return command ? command.description : move.type;
}

export function describeEvent(record, view) {
  return capitalised(eventWords(record, view));
}

function eventWords(record, view) {
  const e = (record && record.event) || {};
  const who = (seat) => seatInSentence(seat, view);
  const owner = (o) => ownerInSentence(o, view);
  const you = (seat) => seat !== null && seat !== undefined && view && view.you === seat;
  switch (e.type) {
    case "feds.game_set_up":
      return `The Feds began (${e.seats} seats, city card ${cityName(e.city)}${e.sirens ? ", sirens on" : ""}): criminals were drawn onto the four locations; ${who(e.badge)} ${e.badge === (view && view.you) ? "hold" : "holds"} the badge.`;
    case "feds.agent_chosen":
      return e.agent ? `${who(e.seat)} chose ${agentName(e.agent)} for ${place(e.location)}.` : `${who(e.seat)} chose an agent for ${place(e.location)}.`;
    case "feds.mole_flipped": {
      const cause = { deploy: "by a deploy", officer: "by the Officer", infiltrate: "by an Infiltrate", bust: "for the bust" }[e.cause] || "";
      return `The mole at ${place(e.location)}, ${possessive(e.owner, view)} ${agentName(e.agent)}, was flipped into the field ${cause}`.trim() +
        (e.power_for !== null && e.power_for !== undefined ? `; ${who(e.power_for)} may use its power.` : ".");
    }
    case "feds.mole_placed":
      return `${owner(e.owner)} placed ${e.agent ? agentName(e.agent) : "an agent"} ${e.face_up ? "face up" : "face down"} as the mole at ${place(e.location)}.`;
    case "feds.police_car_moved":
      return `The Officer drew ${agentName(e.agent)}: the police car moved from ${place(e.from_location)} to ${place(e.to_location)}.`;
    case "feds.power_used":
      return `${who(e.seat)} used the ${e.power} power of ${e.seat === e.owner ? (e.seat === (view && view.you) ? "your" : "its") : possessive(e.owner, view)} ${agentName(e.agent)} at ${place(e.location)}.`;
    case "feds.power_declined":
      return `${who(e.seat)} declined the ${e.power} power of ${e.seat === e.owner ? (e.seat === (view && view.you) ? "your" : "its") : possessive(e.owner, view)} ${agentName(e.agent)} at ${place(e.location)}.`;
    case "feds.mole_peeked":
      return `${who(e.seat)} looked at ${possessive(e.owner, view)} mole at ${place(e.location)}${e.agent ? `: ${agentName(e.agent)}` : ""}.`;
    case "feds.agent_redeployed":
      return `${possessive(e.owner, view, true)} ${agentName(e.agent)} was redeployed from ${place(e.from_location)} to ${place(e.to_location)}.`;
    case "feds.sirens_swapped":
      return `The sirens of ${place(e.first)} and ${place(e.second)} were swapped.`;
    case "feds.criminal_moved":
      return `${article(e.colour).replace(/^a/, "A")} criminal moved from ${place(e.from_location)} to ${place(e.to_location)}.`;
    case "feds.criminal_drawn":
      return `${article(e.colour).replace(/^a/, "A")} criminal was drawn from the bag onto ${place(e.location)}.`;
    case "feds.criminals_arrested": {
      const how = { patrol: " (Patrol)", siren: " (mini-bust)", bust: "" }[e.cause] || "";
      return `${owner(e.owner)} arrested ${criminalsWords(e.criminals)} at ${place(e.location)}${how}.`;
    }
    case "feds.siren_sounded":
      return `The siren (${e.siren}) sounded at ${place(e.location)}: a mini-bust; ` +
        (e.shares || []).map((sh) => `${owner(sh.owner)} ${you(sh.owner) ? "take" : "takes"} ${sh.criminals}`).join(", ") + ".";
    case "feds.location_closed":
      return `${place(e.location)} closed (7 or more field agents).`;
    case "feds.location_reopened":
      return `${place(e.location)} opened again.`;
    case "feds.badge_passed":
      return `The badge passed to ${who(e.seat)}; round ${e.round} begins.`;
    case "feds.arrests_began":
      return "The last round is over: the locations are busted, top to bottom.";
    case "feds.location_busted":
      return `${place(e.location)} is busted; arrest order ${listWords((e.order || []).map((o, i) => `${owner(o)} (${(e.strengths || [])[i] ?? "?"})`))}.`;
    case "feds.utility_token_won":
      return `${owner(e.owner)} won the utility token worth ${e.value} at ${place(e.location)}.`;
    case "feds.game_ended": {
      const first = (e.places || []).map((p, s) => (p === 1 ? s : null)).filter((s) => s !== null);
      return `The game ended. Scores ${(e.scores || []).join(", ")}; ${listWords(first.map(who))} ${first.length > 1 ? "share first place" : "won"}.`;
    }
    default:
      return describeMatchEvent(e, view, (move) => (move.type === "feds.choose_agent" ? `${agentName(move.agent)} to ${place(move.location)}` : null)) || genericEvent(e);
  }
}
