"""Fixed-deal tables for the Bonnie and Clyde scenario tests.

`table` deals exactly the cards a test names and puts every other card of the 77 somewhere
out of the way (the bottom of the Case File, or unnamed locations), so the deck is always
complete.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from msgspec.structs import replace

from domain.bonnie_clyde import GAME
from domain.bonnie_clyde.cards import (
    BONNIE,
    CLYDE,
    EVIDENCE,
    FUGITIVES,
    LOCATIONS,
    TED_HINTON,
    Card,
    full_deck,
)
from domain.bonnie_clyde.events import GameStarted, HandDealt
from domain.bonnie_clyde.state import BonnieClydeState, PlayedSet
from domain.rng import Rng

TED = TED_HINTON


def ev(location: int) -> Card:
    return EVIDENCE[location]


def table(
    hands: list[list[Card]],
    *,
    under: dict[int, Card | None] | None = None,
    next_draws: list[Card] | None = None,
    case_file_size: int | None = None,
    files: list[Card] | None = None,
    dealer: int | None = None,
    target: int = 100,
) -> BonnieClydeState:
    """A hand dealt with these cards. ``under`` names cards under locations (None: the
    spot is empty; unnamed spots get Bonnie, Clyde, then filler). ``next_draws`` are the
    Case File's top cards in drawing order; ``case_file_size`` trims the Case File (the
    cut cards go under the FBI Files). ``files`` is the FBI Files, bottom to top (default:
    one filler card)."""
    seats = len(hands)
    under = dict(under or {})
    next_draws = list(next_draws or [])
    named = [c for h in hands for c in h] + next_draws + list(files or [])
    named += [c for c in under.values() if c is not None]
    rest = Counter(full_deck())
    rest.subtract(named)
    assert all(n >= 0 for n in rest.values()), "more copies named than the deck holds"
    filler = [c for c, n in sorted(rest.items()) if c not in FUGITIVES for _ in range(n)]
    fugitives = [c for c in (BONNIE, CLYDE) if rest[c] > 0]
    locations: list[Card | None] = []
    for loc in reversed(LOCATIONS):
        if loc in under:
            locations.append(under[loc])
        elif fugitives:
            locations.append(fugitives.pop())
        else:
            locations.append(filler.pop())
    locations.reverse()
    if files is None:
        files = [filler.pop()]
    case_file = filler + list(reversed(next_draws))
    if case_file_size is not None:
        # The cards cut from the Case File go to the bottom of the FBI Files.
        cut = len(case_file) - case_file_size
        files = case_file[:cut] + list(files)
        case_file = case_file[cut:]
    first = (dealer if dealer is not None else seats - 1) + 1
    dealt = HandDealt(
        hand_number=1,
        dealer=(first - 1) % seats,
        first_seat=first % seats,
        car=1,
        files_top=files[-1],
        hand_sizes=[len(h) for h in hands],
        case_file_size=len(case_file),
        hands=[list(h) for h in hands],
        location_cards=[c for c in locations if c is not None],
        case_file=case_file,
    )
    state = GAME.evolve(GAME.evolve(None, GameStarted(seats=seats, target=target)), dealt)
    # Empty spots and a longer FBI Files cannot be dealt; set them directly.
    return replace(state, locations=locations, files=list(files))


def playing(state: BonnieClydeState, seat: int | None = None, **changes: Any) -> BonnieClydeState:
    """``state`` in the play step of ``seat``'s turn (the draw already made)."""
    turn_seat = state.turn_seat if seat is None else seat
    return replace(state, turn_seat=turn_seat, drawn=True, **changes)


def melds(*sets: tuple[int, int]) -> list[PlayedSet]:
    return [PlayedSet("meld", location, count, False) for location, count in sets]


def act(
    state: BonnieClydeState, seat: int, command: Any, seed: str = "t"
) -> tuple[BonnieClydeState, list[Any]]:
    """Decide and fold one command; returns the new state and its events."""
    events = GAME.decide(state, seat, command, Rng(seed.encode(), "test"))
    for event in events:
        state = GAME.evolve(state, event)
    return state, events


def card_count(state: BonnieClydeState) -> int:
    in_front = sum(p.count for t in state.tables for p in t) + sum(map(len, state.fugitives))
    under = sum(1 for c in state.locations if c is not None)
    held = sum(map(len, state.hands))
    ted = 1 if state.ted_in_play else 0
    return len(state.case_file) + len(state.files) + under + held + in_front + ted
