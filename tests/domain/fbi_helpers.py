"""Builders for FBI scenario tests: states from chosen cards, and driving commands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain.fbi import GAME
from domain.fbi.cards import CHARACTER_DECK, PURPLE_CARDS, Agent, Card, Colour, Variant, card
from domain.fbi.commands import SelectAgents
from domain.fbi.state import FbiState, Phase, SeatRelease
from domain.rng import Rng

RNG = Rng(b"fbi-tests")


class Deal:
    """Hands out distinct physical cards by colour and value, and the rest as the deck."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def char(self, colour: str, value: int) -> int:
        for c in CHARACTER_DECK:
            if c.colour == colour and c.value == value and c.id not in self.used:
                self.used.add(c.id)
                return c.id
        raise LookupError(f"no {colour} {value} left")

    def purple(self, value: int) -> int:
        c = next(c for c in PURPLE_CARDS if c.value == value)
        self.used.add(c.id)
        return c.id

    def rest(self) -> list[int]:
        return [c.id for c in CHARACTER_DECK if c.id not in self.used]


def build(
    seats: int,
    *,
    deal: Deal | None = None,
    variant: Variant = "base",
    phase: Phase = "release",
    turn: int = 1,
    handcuffs: int = 0,
    table: Sequence[int] = (),
    slammers: Sequence[Sequence[int]] | None = None,
    deck: Sequence[int] | None = None,
    released: Sequence[int] = (),
    releases: Sequence[tuple[int, int | None]] = (),
    arrest_order: Sequence[int] = (),
    arrest_index: int = 0,
    agents: Sequence[Sequence[Colour]] | None = None,
    played: Sequence[Sequence[Colour]] | None = None,
) -> FbiState:
    """A state with chosen cards; the deck defaults to every character not used elsewhere."""
    deal = deal or Deal()
    return FbiState(
        seats=seats,
        variant=variant,
        slammers=[list(s) for s in slammers] if slammers else [[] for _ in range(seats)],
        agents=[list(a) for a in agents] if agents else [[] for _ in range(seats)],
        played=[list(p) for p in played] if played else [[] for _ in range(seats)],
        phase=phase,
        turn=turn,
        handcuffs=handcuffs,
        deck=list(deck) if deck is not None else deal.rest(),
        table=list(table),
        released=list(released),
        releases=[SeatRelease(seat=s, card_id=c) for s, c in releases],
        arrest_order=list(arrest_order),
        arrest_index=arrest_index,
    )


def decide(state: FbiState, seat: int, command: Any) -> list[Any]:
    return GAME.decide(state, seat, command, RNG)


def fold(state: FbiState, events: Sequence[Any]) -> FbiState:
    for event in events:
        state = GAME.evolve(state, event)
    return state


def act(state: FbiState, seat: int, command: Any) -> tuple[FbiState, list[Any]]:
    """When ``seat`` sends ``command``, then the state after its events, and the events."""
    events = decide(state, seat, command)
    return fold(state, events), events


def cards(ids: Sequence[int]) -> list[Card]:
    return [card(i) for i in ids]


def positions_with_hidden_agents(
    seats: int, seed: int, variant: Variant = "base"
) -> list[tuple[FbiState, FbiState]]:
    """Every arrest-phase position of a seeded random game, each with the agent-selection
    position of its turn (the table the agents were chosen against)."""
    from domain.match import Match, MatchEngine
    from tests.domain.playthrough import play

    found: list[tuple[FbiState, FbiState]] = []
    selecting: dict[int, FbiState] = {}

    def record(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        state: FbiState = match.state
        if state.phase == "agents":
            selecting[state.turn] = state
        elif state.phase == "arrest":
            found.append((state, selecting[state.turn]))
        return rng.choice(legal)

    play(GAME, {"variant": variant}, seats, seed, chooser=record)
    return found


def agents_it_may_hold(state: FbiState, selecting: FbiState, seat: int) -> list[list[Colour]]:
    """Every list of agents ``seat`` may still hold in ``state`` as far as the table can
    tell: a legal selection at ``selecting`` minus the agents it has played since.

    Written from the rules (``legal`` and "2x doubles the other"), independently of the
    bots' own reckoning, which tests compare with it."""
    options: list[list[Colour]] = []
    for move in GAME.legal(selecting, seat):
        assert isinstance(move, SelectAgents)  # the agents phase offers nothing else
        colours = [_colour(agent) for agent in (move.first, move.second) if agent != "2x"]
        held = colours * 2 if len(colours) == 1 else colours  # 2x doubles the other
        for colour in state.played[seat]:
            if colour not in held:
                break
            held.remove(colour)
        else:
            if held not in options:
                options.append(held)
    return options


def _colour(agent: Agent) -> Colour:
    assert agent != "2x"
    return agent


def with_agents(state: FbiState, seat: int, held: Sequence[Colour]) -> FbiState:
    """``state`` with ``seat`` holding ``held`` instead."""
    agents = [list(a) for a in state.agents]
    agents[seat] = list(held)
    return msgspec.structs.replace(state, agents=agents)
