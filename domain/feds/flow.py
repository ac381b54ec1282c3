"""What happens by itself between decisions: deploys in turn order, the Officer's turn,
mini-busts, closing, the badge, and the bust.

`advance` folds these automatic events until the game waits for a seat (a power to use, an
arrest to choose, the sealed step 1) or is over. It needs no randomness: everything random
was drawn at setup (the Officer's deck, tokens) or is drawn by a command (new-orleans Patrol).

Order inside a round (docs/house-rules.md#feds):
1. Step 1, sealed: every seat chooses (handled by commands).
2. Step 2: from the badge holder clockwise, each seat deploys. A special agent flipped into a
   field pushes an activation; the game waits for its user to answer before anyone else
   deploys. An Infiltrate's flip can push another activation (a chain): the stack resolves
   the newest activation first. With 2 players the Officer deploys last.
3. Mini-busts (sirens), top to bottom, where a field holds at least its siren's number;
   the Officer takes part like a player and strength counts field cards only
   (docs/house-rules.md#feds-mini-bust-when, docs/house-rules.md#feds-mini-bust-who).
4. Step 3: locations close (7+ field agents) or re-open.
5. Step 4: the badge passes, or after round 7 the bust starts, top to bottom.
"""

from __future__ import annotations

from typing import Any

from domain.feds.arrests import arrest_order, officer_colours, siren_shares, siren_take
from domain.feds.cards import (
    CITY_CARDS,
    CLOSING_FIELD_SIZE,
    LOCATIONS,
    POWER,
    ROUNDS,
    STRENGTH,
    criminals_of,
)
from domain.feds.events import (
    ArrestsBegan,
    BadgePassed,
    CriminalsArrested,
    FedsEvent,
    FlipCause,
    GameEnded,
    LocationBusted,
    LocationClosed,
    LocationReopened,
    MoleFlipped,
    MolePlaced,
    PoliceCarMoved,
    SirenSounded,
    UtilityTokenWon,
)
from domain.feds.evolve import evolve
from domain.feds.scoring import standing
from domain.feds.state import FedsState, Mole
from domain.kit import settle


def advance(state: FedsState) -> tuple[list[FedsEvent], FedsState]:
    """Fold automatic events until someone must decide: the events and the state."""
    return settle(evolve, automatic, state, [])


def automatic(state: FedsState) -> list[FedsEvent]:
    """The next automatic events, if any: none once a seat must decide or the game is over."""
    return _next_events(state)


def power_user(state: FedsState, mole: Mole, cause: FlipCause, flipper: int | None) -> int | None:
    """Who may use the power of ``mole`` as it flips, if anyone.

    Never the Officer's cards, never during the bust (docs/house-rules.md#feds-officer,
    docs/house-rules.md#feds-bust-powers). A flip by an Infiltrate on the new-orleans card
    gives the power to the flipper; otherwise it goes to the owner
    (docs/house-rules.md#feds-power-user)."""
    if mole.owner is None or POWER[mole.agent] is None or cause == "bust":
        return None
    city = CITY_CARDS[state.city]
    if cause == "infiltrate" and city.infiltrated_power_user == "flipper" and flipper is not None:
        return flipper
    return mole.owner


def flip_events(
    state: FedsState, index: int, cause: FlipCause, flipper: int | None = None
) -> list[Any]:
    mole = state.locations[index].mole
    if mole is None:
        return []
    return [
        MoleFlipped(
            location=LOCATIONS[index],
            owner=mole.owner,
            agent=mole.agent,
            cause=cause,
            power_for=power_user(state, mole, cause, flipper),
        )
    ]


def turn_order(state: FedsState) -> list[int]:
    return [(state.badge + k) % state.seats for k in range(state.seats)]


def _next_events(state: FedsState) -> list[Any]:
    if state.phase == "over" or state.activations:
        return []
    if state.siren_takers:
        return _officer_siren_arrest(state)
    if state.phase == "deploy":
        return _step_two_onwards(state)
    if state.phase == "bust":
        return _bust(state)
    return []


def _step_two_onwards(state: FedsState) -> list[Any]:
    for seat in turn_order(state):
        choice = state.chosen[seat]
        if choice is not None:
            return [
                *flip_events(state, choice.location, "deploy"),
                MolePlaced(
                    location=LOCATIONS[choice.location],
                    owner=seat,
                    face_up=False,
                    agent=choice.agent,
                ),
            ]
    officer = state.officer
    if officer is not None and not officer.deployed and officer.deck:
        card = officer.deck[0]
        target = (officer.car + STRENGTH[card]) % len(LOCATIONS)
        return [
            PoliceCarMoved(
                agent=card, from_location=LOCATIONS[officer.car], to_location=LOCATIONS[target]
            ),
            # Even at a closed location; the pushed mole's power activates for its owner.
            *flip_events(state, target, "officer"),
            MolePlaced(location=LOCATIONS[target], owner=None, face_up=True, agent=card),
        ]
    city = CITY_CARDS[state.city]
    for index, spot in enumerate(state.locations):
        if spot.siren is not None and len(spot.field) >= spot.siren:
            return [
                SirenSounded(
                    location=LOCATIONS[index],
                    siren=spot.siren,
                    shares=siren_shares(city, spot.field, spot.criminals),
                )
            ]
    changes: list[Any] = []
    for index, spot in enumerate(state.locations):
        full = len(spot.field) >= CLOSING_FIELD_SIZE
        if full and not spot.closed:
            changes.append(LocationClosed(location=LOCATIONS[index]))
        elif spot.closed and not full:
            changes.append(LocationReopened(location=LOCATIONS[index]))
    if changes:
        return changes
    if state.round < ROUNDS:
        return [BadgePassed(seat=(state.badge + 1) % state.seats, round=state.round + 1)]
    return [ArrestsBegan()]


def _officer_siren_arrest(state: FedsState) -> list[Any]:
    taker = state.siren_takers[0]
    if taker.owner is not None or state.siren_location is None:
        return []
    criminals = state.locations[state.siren_location].criminals
    colours = officer_colours(criminals, siren_take(criminals, taker.criminals))
    return [
        CriminalsArrested(
            owner=None,
            location=LOCATIONS[state.siren_location],
            criminals=criminals_of(colours),
            cause="siren",
        )
    ]


def bust_done(state: FedsState) -> bool:
    """The location being busted (if any) has no criminals left, or nobody to arrest them."""
    index = state.bust_location
    return index < 0 or not state.bust_order or state.locations[index].criminals.total() == 0


def bust_chooser(state: FedsState) -> int | None:
    """Who picks next at the location being busted (None: the Officer); players take turns
    in arrest order, cycling until no criminal remains."""
    return state.bust_order[state.bust_turn % len(state.bust_order)]


def _bust(state: FedsState) -> list[Any]:
    if not bust_done(state):
        if bust_chooser(state) is not None:
            return []
        index = state.bust_location
        criminals = state.locations[index].criminals
        colour = officer_colours(criminals, 1)[0]
        return [
            CriminalsArrested(
                owner=None,
                location=LOCATIONS[index],
                criminals=criminals_of([colour] * criminals.of(colour)),
                cause="bust",
            )
        ]
    index = state.bust_location + 1
    if index == len(LOCATIONS):
        final = standing(state)
        return [GameEnded(scores=final.scores, places=final.places)]
    spot = state.locations[index]
    if spot.mole is not None:
        return flip_events(state, index, "bust")
    order = arrest_order(spot.field)
    events: list[Any] = [
        LocationBusted(
            location=LOCATIONS[index],
            order=[owner for owner, _ in order],
            strengths=[strength for _, strength in order],
        )
    ]
    if spot.utility_token is not None and order:
        events.append(
            UtilityTokenWon(
                owner=order[0][0], location=LOCATIONS[index], value=spot.utility_token.value
            )
        )
    return events
