"""The rules of FBI: pending, legal and decide (docs/house-rules.md#fbi); the fold is `evolve`.

``decide`` returns the events of a command followed by every automatic event it triggers
(the end of the turn, the next handcuffs holder and placement, releases skipped for empty
slammers, the arrest order, the end of the game), so a stored game only ever rests where a
seat must act or where the game is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from domain.engine import Awaiting
from domain.errors import IllegalMove
from domain.fbi import scoring
from domain.fbi.cards import (
    AGENTS,
    CARDS_PLACED_PER_SEAT,
    DOUBLE_AGENT,
    Colour,
    Variant,
    card,
)
from domain.fbi.commands import FbiCommand, Release, ReleaseNone, SelectAgents, UseAgent
from domain.fbi.events import (
    AgentPassed,
    AgentsSelected,
    ArrestOrderDetermined,
    CardReleased,
    CardsPlaced,
    CharacterArrested,
    FbiEvent,
    GameEnded,
    NothingReleased,
    TurnStarted,
)
from domain.fbi.evolve import evolve
from domain.fbi.state import (
    FbiState,
    current_arrester,
    current_releaser,
)
from domain.kit import Commands, on, ranking, settle
from domain.rng import Rng

# ---- automatic events ------------------------------------------------------------------


def with_automatic(state: FbiState | None, events: Sequence[FbiEvent]) -> list[FbiEvent]:
    """``events`` followed by the automatic events they trigger, until a seat must act."""
    return settle(evolve, _automatic, state, events)[0]


def _automatic(state: FbiState) -> list[FbiEvent]:
    """What happens by itself now, if anything: the end of the game, the next turn, the
    placement, a release skipped for an empty slammer, the arrest order."""
    event = _next_automatic(state)
    return [] if event is None else [event]


def _next_automatic(state: FbiState) -> FbiEvent | None:
    n = state.seats
    if state.phase == "between_turns":
        if state.turn > 0 and not state.deck:
            # The game ends after the turn in which the last deck card was placed; cards
            # still on the table are ignored (docs/house-rules.md#fbi-end).
            awards = scoring.bonus_awards(state.slammers)
            totals = scoring.scores(state.slammers, awards)
            return GameEnded(bonuses=awards, scores=totals, winners=ranking(totals).winners)
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
            # A player with an empty slammer releases none, without a move
            # (docs/house-rules.md#fbi-release).
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


# ---- decide: one handler per command ---------------------------------------------------


def decide(state: FbiState, seat: int, command: FbiCommand, rng: Rng) -> list[FbiEvent]:
    """FBI draws nothing after setup (the deck order is recorded when it is shuffled), so
    ``rng`` goes unused."""
    return apply(state, seat, command, rng)[0]


def apply(
    state: FbiState, seat: int, command: FbiCommand, rng: Rng
) -> tuple[list[FbiEvent], FbiState]:
    """``decide``'s events, with everything automatic they trigger, and the state they lead
    to (bots simulate with it)."""
    events = COMMANDS.decide(state, seat, command, rng)
    return settle(evolve, _automatic, state, events)


def _release_none(state: FbiState, seat: int, command: ReleaseNone, rng: Rng) -> list[FbiEvent]:
    return [NothingReleased(seat=seat)]


def _release(state: FbiState, seat: int, command: Release, rng: Rng) -> list[FbiEvent]:
    if command.card_id not in state.slammers[seat]:
        raise IllegalMove(f"card {command.card_id} is not in seat {seat}'s slammer")
    return [CardReleased(seat=seat, card=card(command.card_id))]


def _select_agents(state: FbiState, seat: int, command: SelectAgents, rng: Rng) -> list[FbiEvent]:
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
    return [AgentsSelected(seat=seat, first=first, second=second)]


def _use_agent(state: FbiState, seat: int, command: UseAgent, rng: Rng) -> list[FbiEvent]:
    if command.colour not in state.agents[seat]:
        raise IllegalMove(f"seat {seat} has no {command.colour} agent left this turn")
    target = card_to_arrest(state, command.colour)
    if target is None:
        return [AgentPassed(seat=seat, agent=command.colour)]
    # If the table holds the colour, the arrest is compulsory, innocent or not.
    return [CharacterArrested(seat=seat, agent=command.colour, card=card(target))]


_VERBS = {"release": "release", "agents": "select agents", "arrest": "arrest"}


def _awaited_step(state: FbiState, seat: int) -> str | None:
    """The phase ``seat`` is awaited in, if it is."""
    return state.phase if seat in {p.seat for p in pending(state)} else None


def _wrong_step(seat: int, command: FbiCommand, now: str, wanted: str) -> str:
    return f"it is time to {_VERBS.get(now, 'wait')}, not to {_VERBS[wanted]}"


COMMANDS = Commands[FbiState, FbiEvent](
    "FBI",
    {
        ReleaseNone: on("release", _release_none),
        Release: on("release", _release),
        SelectAgents: on("agents", _select_agents),
        UseAgent: on("arrest", _use_agent),
    },
    over=lambda state: state.phase == "over",
    step=_awaited_step,
    wrong_step_message=_wrong_step,
)
