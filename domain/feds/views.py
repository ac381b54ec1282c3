"""What a seat (or a spectator, ``seat=None``) may see: `view` of the state, `redact` of events.

Hidden from a seat: other seats' hands and step-1 cards, face-down moles it neither owns nor
peeked at, face-down utility token values (hidden from everyone until won at the bust;
decided: a token nobody wins stays hidden), and the Officer's deck order. Everything else —
criminals, fields, the bag's contents (which follow from the rest), who peeked where — is
public.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.feds.cards import (
    LOCATIONS,
    POWER,
    ROUNDS,
    STRENGTH,
    Agent,
    City,
    Criminals,
    Location,
    Power,
)
from domain.feds.events import (
    AgentChosen,
    FedsEvent,
    GameSetUp,
    MolePeeked,
    MolePlaced,
    SirenShare,
    UtilityTokenFace,
)
from domain.feds.scoring import final_scores
from domain.feds.state import FedsState, Mole, Officer, Phase, Spot


class MoleView(msgspec.Struct, frozen=True):
    """A location's mole. ``agent``/``strength`` are None when the viewer may not know them."""

    owner: int | None
    face_up: bool
    agent: Agent | None
    strength: int | None
    #: Seats that looked at this face-down mole (Detroit Infiltrate); public.
    seen_by: list[int]


class FieldAgentView(msgspec.Struct, frozen=True):
    """A face-up field agent; owner None is the Officer."""

    owner: int | None
    agent: Agent
    strength: int


class LocationView(msgspec.Struct, frozen=True):
    """One location. ``field[0]`` lies closest to the location; the last card is the rookie."""

    location: Location
    criminals: Criminals
    mole: MoleView | None
    field: list[FieldAgentView]
    closed: bool
    siren: int | None
    utility_token: UtilityTokenFace | None


class PlayerView(msgspec.Struct, frozen=True):
    """One seat. ``hand`` and ``chosen_agent`` are shown to that seat only."""

    seat: int
    hand_size: int
    hand: list[Agent] | None
    #: The location chosen in step 1, public after every reveal, until the deploy.
    chosen_location: Location | None
    chosen_agent: Agent | None
    jail: Criminals
    utility_tokens: list[int]
    #: Final score, once the game is over.
    score: int | None


class OfficerView(msgspec.Struct, frozen=True):
    """The imaginary Officer of a 2-player game (never scored). ``utility_tokens`` are the
    tokens it won: out of the game, they count for nobody (HOUSE-RULES §2)."""

    car: Location
    deck_size: int
    deployed_this_round: bool
    jail: Criminals
    utility_tokens: list[int]


class ActivationView(msgspec.Struct, frozen=True):
    """A flipped special agent whose power ``seat`` may use now (or decline)."""

    seat: int
    owner: int
    agent: Agent
    power: Power
    location: Location


class SirenArrestView(msgspec.Struct, frozen=True):
    """A mini-bust in progress: who still arrests how many criminals, in order."""

    location: Location
    shares: list[SirenShare]


class BustView(msgspec.Struct, frozen=True):
    """The location being busted: arrest order, and whose pick it is (index into order)."""

    location: Location
    order: list[int | None]
    next_in_order: int | None


class FedsView(msgspec.Struct, frozen=True, tag="feds", tag_field="game"):
    seat: int | None
    seats: int
    city: City
    sirens: bool
    round: int
    rounds: int
    badge: int
    phase: Phase
    locations: list[LocationView]
    players: list[PlayerView]
    officer: OfficerView | None
    bag: Criminals
    activations: list[ActivationView]
    siren_arrest: SirenArrestView | None
    bust: BustView | None
    #: Public decisions so far (part of the step ids).
    moves: int


def _mole_view(mole: Mole, seat: int | None) -> MoleView:
    known = mole.face_up or (seat is not None and (seat == mole.owner or seat in mole.seen_by))
    return MoleView(
        owner=mole.owner,
        face_up=mole.face_up,
        agent=mole.agent if known else None,
        strength=STRENGTH[mole.agent] if known else None,
        seen_by=list(mole.seen_by),
    )


def view(state: FedsState, seat: int | None) -> FedsView:
    """What ``seat`` (None: a spectator) may see: its own hand and step-1 choice, everyone's
    fields, face-up moles and tokens, and the moles it peeked at."""
    return FedsView(
        seat=seat,
        seats=state.seats,
        city=state.city,
        sirens=state.sirens,
        round=state.round,
        rounds=ROUNDS,
        badge=state.badge,
        phase=state.phase,
        locations=[_location_view(index, spot, seat) for index, spot in enumerate(state.locations)],
        players=_player_views(state, seat),
        officer=_officer_view(state.officer),
        bag=state.bag,
        activations=_activation_views(state),
        siren_arrest=_siren_arrest_view(state),
        bust=_bust_view(state),
        moves=state.moves,
    )


def _location_view(index: int, spot: Spot, seat: int | None) -> LocationView:
    token = spot.utility_token
    return LocationView(
        location=LOCATIONS[index],
        criminals=spot.criminals,
        mole=_mole_view(spot.mole, seat) if spot.mole is not None else None,
        field=[FieldAgentView(a.owner, a.agent, STRENGTH[a.agent]) for a in spot.field],
        closed=spot.closed,
        siren=spot.siren,
        utility_token=(
            UtilityTokenFace(token.value if token.face_up else None, token.face_up)
            if token is not None
            else None
        ),
    )


def _player_views(state: FedsState, seat: int | None) -> list[PlayerView]:
    scores = final_scores(state) if state.phase == "over" else None
    players = []
    for s in range(state.seats):
        mine = s == seat
        choice = state.chosen[s]
        players.append(
            PlayerView(
                seat=s,
                hand_size=len(state.hands[s]),
                hand=list(state.hands[s]) if mine else None,
                chosen_location=LOCATIONS[choice.location] if choice else None,
                chosen_agent=choice.agent if choice and mine else None,
                jail=state.jails[s],
                utility_tokens=list(state.utility_tokens[s]),
                score=scores[s] if scores else None,
            )
        )
    return players


def _officer_view(officer: Officer | None) -> OfficerView | None:
    if officer is None:
        return None
    return OfficerView(
        car=LOCATIONS[officer.car],
        deck_size=len(officer.deck),
        deployed_this_round=officer.deployed,
        jail=officer.jail,
        utility_tokens=list(officer.utility_tokens),
    )


def _activation_views(state: FedsState) -> list[ActivationView]:
    activations = []
    for a in state.activations:
        power = POWER[a.agent]
        if power is not None:
            activations.append(
                ActivationView(a.seat, a.owner, a.agent, power, LOCATIONS[a.location])
            )
    return activations


def _siren_arrest_view(state: FedsState) -> SirenArrestView | None:
    if state.siren_location is None:
        return None
    return SirenArrestView(
        location=LOCATIONS[state.siren_location],
        shares=[SirenShare(t.owner, t.criminals) for t in state.siren_takers],
    )


def _bust_view(state: FedsState) -> BustView | None:
    if state.phase not in ("bust", "over") or state.bust_location < 0:
        return None
    order = list(state.bust_order)
    done = not order or state.locations[state.bust_location].criminals.total() == 0
    return BustView(
        location=LOCATIONS[state.bust_location],
        order=order,
        next_in_order=None if done else state.bust_turn % len(order),
    )


def redact(event: FedsEvent, seat: int | None) -> FedsEvent:
    if isinstance(event, GameSetUp):
        # The Officer's deck order and face-down token values are hidden from everyone.
        tokens = [
            t if t is None or t.face_up else UtilityTokenFace(None, False)
            for t in event.utility_tokens
        ]
        return replace(event, officer_deck=None, utility_tokens=tokens)
    if isinstance(event, AgentChosen) and event.seat != seat:
        return replace(event, agent=None)
    if isinstance(event, MolePlaced) and not event.face_up and event.owner != seat:
        return replace(event, agent=None)
    if isinstance(event, MolePeeked) and event.seat != seat:
        return replace(event, agent=None)
    return event
