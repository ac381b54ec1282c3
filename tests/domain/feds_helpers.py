"""Build fixed tables of The Feds for scenario tests (given), and act on them (when)."""

from __future__ import annotations

from typing import Any

from domain.feds.cards import AGENTS, LOCATION_INDEX, Agent, City, Criminals, Location
from domain.feds.evolve import evolve
from domain.feds.flow import advance
from domain.feds.rules import apply
from domain.feds.state import (
    Activation,
    Choice,
    FedsState,
    FieldAgent,
    Mole,
    Officer,
    Phase,
    Spot,
    UtilityToken,
)
from domain.rng import Rng

BLUE, RED, GREEN, YELLOW = 0, 1, 2, 3
OFFICER = None


def crims(**counts: int) -> Criminals:
    return Criminals(**counts)


def field(*cards: tuple[int | None, Agent]) -> list[FieldAgent]:
    """Field agents, closest to the location first."""
    return [FieldAgent(owner, agent) for owner, agent in cards]


def mole(owner: int | None, agent: Agent, *, seen_by: list[int] | None = None) -> Mole:
    return Mole(owner, agent, face_up=owner is None, seen_by=seen_by or [])


def spot(
    criminals: Criminals | None = None,
    *,
    mole: Mole | None = None,
    field: list[FieldAgent] | None = None,
    closed: bool = False,
    siren: int | None = None,
    token: int | None = None,
    token_face_up: bool = True,
) -> Spot:
    return Spot(
        criminals=criminals or Criminals(),
        mole=mole,
        field=field or [],
        closed=closed,
        siren=siren,
        utility_token=UtilityToken(token, token_face_up) if token is not None else None,
    )


def given(
    *,
    seats: int = 3,
    city: City = "chicago",
    sirens: bool | None = None,
    badge: int = 0,
    club: Spot | None = None,
    docks: Spot | None = None,
    motel: Spot | None = None,
    warehouse: Spot | None = None,
    hands: list[list[Agent]] | None = None,
    chosen: dict[int, tuple[Agent, Location]] | None = None,
    phase: Phase = "choose",
    round: int = 1,
    jails: list[Criminals] | None = None,
    tokens: list[list[int]] | None = None,
    bag: Criminals | None = None,
    officer_deck: list[Agent] | None = None,
    car: Location = "club",
    activations: list[Activation] | None = None,
) -> FedsState:
    """A state with exactly the cards given (defaults: empty locations, full hands)."""
    locations = [s or spot() for s in (club, docks, motel, warehouse)]
    choices: list[Choice | None] = [None] * seats
    for seat, (agent, location) in (chosen or {}).items():
        choices[seat] = Choice(agent, LOCATION_INDEX[location])
    officer = None
    if seats == 2:
        officer = Officer(deck=officer_deck or list(AGENTS), car=LOCATION_INDEX[car])
    return FedsState(
        seats=seats,
        city=city,
        sirens=sirens if sirens is not None else city == "new-orleans",
        badge=badge,
        locations=locations,
        hands=hands or [list(AGENTS) for _ in range(seats)],
        jails=jails or [Criminals() for _ in range(seats)],
        utility_tokens=tokens or [[] for _ in range(seats)],
        bag=bag or Criminals(),
        officer=officer,
        round=round,
        phase=phase,
        chosen=choices,
        activations=activations or [],
    )


def when(
    state: FedsState, seat: int, command: Any, seed: bytes = b"when"
) -> tuple[FedsState, list[Any]]:
    """``seat`` sends ``command``: the state after it, and the events it produced."""
    events, after = apply(state, seat, command, Rng(seed))
    assert evolve.all(state, events) == after
    return after, events


def run(state: FedsState) -> tuple[FedsState, list[Any]]:
    """Let the automatic steps run (deploys, the Officer, mini-busts, closing, busts)."""
    events, after = advance(state)
    return after, events


def of_type(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def officer_of(state: FedsState) -> Officer:
    assert state.officer is not None
    return state.officer


def at(state: FedsState, location: Location) -> Spot:
    return state.locations[LOCATION_INDEX[location]]
