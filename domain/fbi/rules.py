"""The rules of FBI: setup, decide, evolve, pending and legal (HOUSE-RULES §1).

``decide`` returns the events of a command followed by every automatic event it triggers
(the end of the turn, the next handcuffs holder and placement, releases skipped for empty
slammers, the arrest order, the end of the game), so a stored game only ever rests where a
seat must act or where the game is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import msgspec

from domain.engine import Awaiting
from domain.errors import GameOver, IllegalMove, InvalidOptions, NotYourTurn, WrongPhase
from domain.fbi import scoring
from domain.fbi.cards import (
    AGENTS,
    CARDS_PLACED_PER_SEAT,
    CHARACTER_DECK,
    DOUBLE_AGENT,
    MAX_SEATS,
    MIN_SEATS,
    Agent,
    Colour,
    Variant,
    card,
    purple_pair,
)
from domain.fbi.commands import FbiCommand, Release, ReleaseNone, SelectAgents, UseAgent
from domain.fbi.events import (
    AgentPassed,
    AgentsSelected,
    ArrestOrderDetermined,
    CardReleased,
    CardsPlaced,
    CharacterArrested,
    DeckShuffled,
    FbiEvent,
    GameEnded,
    GameStarted,
    NothingReleased,
    PurpleCardsDealt,
    TurnStarted,
)
from domain.fbi.options import FbiOptions
from domain.fbi.state import (
    FbiState,
    SeatRelease,
    current_arrester,
    current_releaser,
)
from domain.rng import Rng

# ---- setup ---------------------------------------------------------------------------


def setup(options: FbiOptions, seats: int, rng: Rng) -> list[FbiEvent]:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise InvalidOptions(f"FBI takes {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
    # Each seat gets a random +k of +1..+N and the matching -k.
    ks = rng.shuffled(range(1, seats + 1))
    slammers = [list(purple_pair(k)) for k in ks]
    deck = rng.shuffled([c.id for c in CHARACTER_DECK])
    opening: list[FbiEvent] = [
        GameStarted(seats=seats, variant=options.variant),
        PurpleCardsDealt(slammers=slammers),
        DeckShuffled(size=len(deck), card_ids=deck),
    ]
    return with_automatic(None, opening)


# ---- evolve --------------------------------------------------------------------------


def evolve(state: FbiState | None, event: FbiEvent) -> FbiState:
    if isinstance(event, GameStarted):
        return FbiState(
            seats=event.seats,
            variant=event.variant,
            slammers=[[] for _ in range(event.seats)],
            agents=[[] for _ in range(event.seats)],
            played=[[] for _ in range(event.seats)],
        )
    if state is None:
        raise ValueError("an FBI stream starts with fbi.game_started")
    replace = msgspec.structs.replace
    if isinstance(event, PurpleCardsDealt):
        slammers = [
            [*own, *(c.id for c in dealt)]
            for own, dealt in zip(state.slammers, event.slammers, strict=True)
        ]
        return replace(state, slammers=slammers)
    if isinstance(event, DeckShuffled):
        if event.card_ids is None:
            raise ValueError("cannot evolve a redacted deck shuffle")
        return replace(state, deck=list(event.card_ids), phase="between_turns")
    if isinstance(event, TurnStarted):
        return replace(
            state,
            phase="placing",
            turn=event.turn,
            handcuffs=event.handcuffs_holder,
            releases=[],
            arrest_order=[],
            arrest_index=0,
            agents=[[] for _ in range(state.seats)],
            played=[[] for _ in range(state.seats)],
        )
    if isinstance(event, CardsPlaced):
        ids = [c.id for c in event.cards]
        if state.deck[: len(ids)] != ids:
            raise ValueError("placed cards are not the top of the deck")
        return replace(
            state, deck=state.deck[len(ids) :], table=[*state.table, *ids], phase="release"
        )
    if isinstance(event, CardReleased):
        slammers = list(state.slammers)
        slammers[event.seat] = [i for i in slammers[event.seat] if i != event.card.id]
        return replace(
            state,
            slammers=slammers,
            released=[*state.released, event.card.id],
            releases=[*state.releases, SeatRelease(seat=event.seat, card_id=event.card.id)],
        )
    if isinstance(event, NothingReleased):
        return replace(
            state, releases=[*state.releases, SeatRelease(seat=event.seat, card_id=None)]
        )
    if isinstance(event, ArrestOrderDetermined):
        return replace(state, arrest_order=list(event.order), phase="agents")
    if isinstance(event, AgentsSelected):
        if event.first is None or event.second is None:
            raise ValueError("cannot evolve a redacted agent selection")
        agents = list(state.agents)
        agents[event.seat] = agents_in_play(event.first, event.second)
        phase = "arrest" if all(agents) else state.phase
        return replace(state, agents=agents, phase=phase)
    if isinstance(event, CharacterArrested | AgentPassed):
        agents = list(state.agents)
        remaining = list(agents[event.seat])
        remaining.remove(event.agent)
        agents[event.seat] = remaining
        played = list(state.played)
        played[event.seat] = [*played[event.seat], event.agent]
        index = state.arrest_index + 1
        phase = "between_turns" if index == 2 * state.seats else state.phase
        changes: dict[str, Any] = {}
        if isinstance(event, CharacterArrested):
            slammers = list(state.slammers)
            slammers[event.seat] = [*slammers[event.seat], event.card.id]
            changes = {
                "slammers": slammers,
                "table": [i for i in state.table if i != event.card.id],
            }
        return replace(
            state, agents=agents, played=played, arrest_index=index, phase=phase, **changes
        )
    if isinstance(event, GameEnded):
        return replace(state, phase="over", bonuses=list(event.bonuses))
    raise ValueError(f"not an FBI event: {event!r}")


def agents_in_play(first: Agent, second: Agent) -> list[Colour]:
    """The colours two selected agents arrest with: "2x" + colour is that colour twice."""
    colours = [a for a in (first, second) if a != DOUBLE_AGENT]
    return [colours[0], colours[0]] if len(colours) == 1 else colours


# ---- automatic events ------------------------------------------------------------------


def with_automatic(state: FbiState | None, events: Sequence[FbiEvent]) -> list[FbiEvent]:
    """``events`` followed by the automatic events they trigger, until a seat must act."""
    return _settle(state, events)[0]


def _settle(state: FbiState | None, events: Sequence[FbiEvent]) -> tuple[list[FbiEvent], FbiState]:
    out = list(events)
    for event in events:
        state = evolve(state, event)
    assert state is not None
    while True:
        follow = _automatic(state)
        if follow is None:
            return out, state
        state = evolve(state, follow)
        out.append(follow)


def _automatic(state: FbiState) -> FbiEvent | None:
    n = state.seats
    if state.phase == "between_turns":
        if state.turn > 0 and not state.deck:
            # The game ends after the turn in which the last deck card was placed; cards
            # still on the table are ignored (HOUSE-RULES §1, "End").
            awards = scoring.bonus_awards(state.slammers)
            totals = scoring.scores(state.slammers, awards)
            return GameEnded(bonuses=awards, scores=totals, winners=scoring.winners(totals))
        # Turn one: the holder of purple +N; later the handcuffs pass to the next seat.
        first = state.turn == 0
        holder = first_handcuffs_holder(state) if first else (state.handcuffs + 1) % n
        return TurnStarted(turn=state.turn + 1, handcuffs_holder=holder)
    if state.phase == "placing":
        count = min(CARDS_PLACED_PER_SEAT * n, len(state.deck))
        return CardsPlaced(turn=state.turn, cards=[card(i) for i in state.deck[:count]])
    if state.phase == "release":
        if len(state.releases) == n:
            return ArrestOrderDetermined(
                order=arrest_order(state), released_values=released_values(state)
            )
        seat = current_releaser(state)
        if not state.slammers[seat]:
            # HOUSE-RULES §1.3: a player with an empty slammer releases none; no move needed.
            return NothingReleased(seat=seat, automatic=True)
    return None


def first_handcuffs_holder(state: FbiState) -> int:
    """In turn one the handcuffs go to the holder of the purple +N."""
    for seat, slammer in enumerate(state.slammers):
        for i in slammer:
            c = card(i)
            if c.colour == "purple" and c.value == state.seats:
                return seat
    raise ValueError("nobody holds the purple +N")


def released_values(state: FbiState) -> list[int]:
    """Each seat's released value this turn; releasing nothing counts 0."""
    values = [0] * state.seats
    for release in state.releases:
        if release.card_id is not None:
            values[release.seat] = card(release.card_id).value
    return values


def arrest_order(state: FbiState) -> list[int]:
    """Highest released value first; ties go to the seat first clockwise from the holder."""
    values = released_values(state)
    n = state.seats
    return sorted(range(n), key=lambda seat: (-values[seat], (seat - state.handcuffs) % n))


# ---- who acts and what they may do ----------------------------------------------------


def pending(state: FbiState) -> list[Awaiting]:
    turn = state.turn
    if state.phase == "release" and len(state.releases) < state.seats:
        seat = current_releaser(state)
        return [Awaiting(seat=seat, step=f"t{turn}.release.{seat}")]
    if state.phase == "agents":
        # One sealed step shared by every seat still to choose.
        return [
            Awaiting(seat=seat, step=f"t{turn}.agents", sealed=True)
            for seat in range(state.seats)
            if not state.agents[seat]
        ]
    if state.phase == "arrest":
        seat = current_arrester(state)
        return [Awaiting(seat=seat, step=f"t{turn}.arrest.{state.arrest_index}")]
    return []


def table_colours(state: FbiState) -> set[str]:
    return {card(i).colour for i in state.table}


def legal(state: FbiState, seat: int) -> list[FbiCommand]:
    if seat not in {p.seat for p in pending(state)}:
        return []
    if state.phase == "release":
        return [ReleaseNone(), *(Release(card_id=i) for i in state.slammers[seat])]
    if state.phase == "agents":
        present = table_colours(state)
        usable = [a for a in AGENTS if a in present or a == DOUBLE_AGENT]
        # Pairs in the canonical order of AGENTS, so each pair appears once; "2x" is last,
        # so "2x" + "2x" never appears.
        return [SelectAgents(first=a, second=b) for a, b in combinations(usable, 2)]
    if state.phase == "arrest":
        return [UseAgent(colour=c) for c in dict.fromkeys(state.agents[seat])]
    return []


def card_to_arrest(state: FbiState, colour: Colour) -> int | None:
    """The card an agent of ``colour`` must take now, or None when the colour is gone."""
    return arrest_target(state.table, colour, state.variant)


def arrest_target(table: Sequence[int], colour: Colour, variant: Variant) -> int | None:
    """Base game: the highest value of that colour (equal values are the same card to every
    player; the one placed first is taken). Stacked variant: the top of the colour's pile,
    i.e. the card of that colour placed last."""
    of_colour = [i for i in table if card(i).colour == colour]
    if not of_colour:
        return None
    if variant == "stacked":
        return of_colour[-1]
    best = max(card(i).value for i in of_colour)
    return next(i for i in of_colour if card(i).value == best)


# ---- decide --------------------------------------------------------------------------


def decide(state: FbiState, seat: int, command: FbiCommand) -> list[FbiEvent]:
    return apply(state, seat, command)[0]


def apply(state: FbiState, seat: int, command: FbiCommand) -> tuple[list[FbiEvent], FbiState]:
    """``decide`` together with the state its events lead to (bots simulate with it)."""
    if state.phase == "over":
        raise GameOver("the game is over")
    if seat not in {p.seat for p in pending(state)}:
        raise NotYourTurn(f"seat {seat} has nothing to do now")
    event: FbiEvent
    if isinstance(command, Release | ReleaseNone):
        event = _release(state, seat, command)
    elif isinstance(command, SelectAgents):
        event = _select_agents(state, seat, command)
    elif isinstance(command, UseAgent):
        event = _use_agent(state, seat, command)
    else:
        raise IllegalMove(f"not an FBI command: {type(command).__name__}")
    return _settle(state, [event])


def _release(state: FbiState, seat: int, command: Release | ReleaseNone) -> FbiEvent:
    if state.phase != "release":
        raise WrongPhase(f"it is time to {_phase_verb(state)}, not to release")
    if isinstance(command, ReleaseNone):
        return NothingReleased(seat=seat)
    if command.card_id not in state.slammers[seat]:
        raise IllegalMove(f"card {command.card_id} is not in seat {seat}'s slammer")
    return CardReleased(seat=seat, card=card(command.card_id))


def _select_agents(state: FbiState, seat: int, command: SelectAgents) -> FbiEvent:
    if state.phase != "agents":
        raise WrongPhase(f"it is time to {_phase_verb(state)}, not to select agents")
    first, second = command.first, command.second
    if first == second:
        raise IllegalMove("select two different field agents")
    present = table_colours(state)
    for agent in (first, second):
        if agent != DOUBLE_AGENT and agent not in present:
            raise IllegalMove(f"no {agent} character is on the table")
    # Recorded in the canonical order ("2x" last) whichever order the seat sent.
    if AGENTS.index(first) > AGENTS.index(second):
        first, second = second, first
    return AgentsSelected(seat=seat, first=first, second=second)


def _use_agent(state: FbiState, seat: int, command: UseAgent) -> FbiEvent:
    if state.phase != "arrest":
        raise WrongPhase(f"it is time to {_phase_verb(state)}, not to arrest")
    if command.colour not in state.agents[seat]:
        raise IllegalMove(f"seat {seat} has no {command.colour} agent left this turn")
    target = card_to_arrest(state, command.colour)
    if target is None:
        return AgentPassed(seat=seat, agent=command.colour)
    # If the table holds the colour, the arrest is compulsory, innocent or not.
    return CharacterArrested(seat=seat, agent=command.colour, card=card(target))


def _phase_verb(state: FbiState) -> str:
    return {"release": "release", "agents": "select agents", "arrest": "arrest"}.get(
        state.phase, "wait"
    )
