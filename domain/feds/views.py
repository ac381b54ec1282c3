"""What a seat (or a spectator, ``seat=None``) may see: `view` of the state, `redact` of events.

Hidden from a seat: other seats' hands and step-1 cards, face-down moles it neither owns nor
peeked at, face-down utility token values (hidden from everyone until won at the bust;
decided: a token nobody wins stays hidden), and the Officer's deck order. Everything else —
criminals, fields, the bag's contents (which follow from the rest), who peeked where — is
public.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec.structs import replace

from domain.engine import doc
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
    OWNER,
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


# docs/house-rules.md#feds.
class MoleView(msgspec.Struct, frozen=True):
    """A location's mole: the card face down in its hideout (house rules, in
    GET /v1/rules/feds). What it is shows only to its owner, to seats that peeked at it,
    and to everyone once face up."""

    owner: Annotated[int | None, doc(OWNER)]
    face_up: Annotated[bool, doc("Whether the mole lies face up (an Officer's mole always).")]
    agent: Annotated[Agent | None, doc("The agent card, null when the viewer may not know it.")]
    strength: Annotated[
        int | None, doc("The agent's strength, null when the viewer may not know it.")
    ]
    seen_by: Annotated[
        list[int],
        doc("Seats that looked at this face-down mole with a Detroit Infiltrate (public)."),
    ]


class FieldAgentView(msgspec.Struct, frozen=True):
    """A face-up agent in a location's field."""

    owner: Annotated[int | None, doc(OWNER)]
    agent: Annotated[Agent, doc("The agent card.")]
    strength: Annotated[int, doc("Its strength at the bust (see `agent_cards` in the rules).")]


class LocationView(msgspec.Struct, frozen=True):
    """One of the four locations, top (club) to bottom (warehouse)."""

    location: Annotated[Location, doc("Which location.")]
    criminals: Annotated[Criminals, doc("The criminals still free here, by colour.")]
    mole: Annotated[
        MoleView | None, doc("The card in the hideout, null while nobody has one here.")
    ]
    field: Annotated[
        list[FieldAgentView],
        doc(
            "The face-up agents here in arrival order: the first lies closest to the "
            "location, the last is the rookie (the next card deployed here becomes the mole)."
        ),
    ]
    closed: Annotated[
        bool,
        doc("Closed: its field reached the closing size; no agent may be deployed here."),
    ]
    siren: Annotated[
        int | None,
        doc(
            "The siren token's number (sirens on): a mini-bust happens when the field "
            "reaches this many agents; null without a siren."
        ),
    ]
    utility_token: Annotated[
        UtilityTokenFace | None,
        doc("The utility token lying here (won at the bust), null when there is none."),
    ]


class PlayerView(msgspec.Struct, frozen=True):
    """One seat's public standing; its hand and step-1 card show to that seat only."""

    seat: Annotated[int, doc("The seat number.")]
    hand_size: Annotated[int, doc("Agent cards still in the seat's hand.")]
    hand: Annotated[
        list[Agent] | None, doc("The agent cards in hand: to that seat only, else null.")
    ]
    chosen_location: Annotated[
        Location | None,
        doc(
            "The location chosen in step 1, public once every seat revealed, until the "
            "deploy; null otherwise."
        ),
    ]
    chosen_agent: Annotated[
        Agent | None, doc("The agent chosen in step 1: to that seat only, else null.")
    ]
    jail: Annotated[Criminals, doc("The criminals this seat arrested, by colour.")]
    utility_tokens: Annotated[list[int], doc("The values of the utility tokens it won.")]
    score: Annotated[int | None, doc("The final score once the game is over, else null.")]


# docs/house-rules.md#feds-officer-utility-token.
class OfficerView(msgspec.Struct, frozen=True):
    """The imaginary Officer of a 2-player game (never scored). ``utility_tokens`` are the
    tokens it won: out of the game, they count for nobody (house rules, in GET /v1/rules/feds)."""

    car: Annotated[Location, doc("The police car's location: the Officer deploys there.")]
    deck_size: Annotated[int, doc("Cards left in the Officer's face-down deck.")]
    deployed_this_round: Annotated[bool, doc("Whether the Officer deployed this round.")]
    jail: Annotated[Criminals, doc("The criminals the Officer arrested, by colour.")]
    utility_tokens: Annotated[list[int], doc("The values of the utility tokens it won.")]


class ActivationView(msgspec.Struct, frozen=True):
    """A flipped special agent whose power ``seat`` may use now (or decline). Flips
    queue up; the last one listed is decided first."""

    seat: Annotated[int, doc("The seat that decides: use the power or decline it.")]
    owner: Annotated[int, doc("The seat that owns the flipped agent.")]
    agent: Annotated[Agent, doc("The flipped special agent.")]
    power: Annotated[Power, doc("Its power (what the city card makes it do).")]
    location: Annotated[Location, doc("Where it was flipped: the power acts from there.")]


class SirenArrestView(msgspec.Struct, frozen=True):
    """A mini-bust in progress: who still arrests how many criminals, in order."""

    location: Annotated[Location, doc("The location whose siren sounded.")]
    shares: Annotated[
        list[SirenShare], doc("Who still arrests how many criminals, first in order first.")
    ]


class BustView(msgspec.Struct, frozen=True):
    """The location being busted: arrest order, and whose pick it is (index into order)."""

    location: Annotated[Location, doc("The location being busted.")]
    order: Annotated[
        list[int | None],
        doc("The arrest order, strongest first: seats, null for the Officer."),
    ]
    next_in_order: Annotated[
        int | None,
        doc("The index into `order` of the one who picks next; null once it is done."),
    ]


class FedsView(msgspec.Struct, frozen=True, tag="feds", tag_field="game"):
    """What one seat (or a spectator) sees of a game of The Feds: everything but the
    hands, the step-1 cards of others, moles it may not know, face-down utility tokens
    and the Officer's deck order.

    Step ids of its awaited actions: ``r{round}.agents`` (the sealed step 1),
    ``r{round}.power.{moves}`` (use or decline a flipped power), ``r{round}.siren.{moves}``
    (a mini-bust arrest) and ``bust.{moves}`` (a pick at the final bust)."""

    seat: Annotated[int | None, doc("The viewing seat, null for a spectator.")]
    seats: Annotated[int, doc("How many seats play (2 to 4).")]
    city: Annotated[City, doc("The house city card in play (see `city_cards` in the rules).")]
    sirens: Annotated[bool, doc("Whether siren tokens are in play.")]
    round: Annotated[int, doc("The current round, 1 to `rounds`.")]
    rounds: Annotated[int, doc("How many rounds the game has before the bust (7).")]
    badge: Annotated[int, doc("The seat holding the badge this round.")]
    phase: Annotated[
        Phase,
        doc(
            "choose: the sealed step 1; deploy: choices revealed, powers and mini-busts "
            "being resolved; bust: the final arrests; over."
        ),
    ]
    locations: Annotated[list[LocationView], doc("The four locations, top to bottom.")]
    players: Annotated[list[PlayerView], doc("Each seat, indexed by seat.")]
    officer: Annotated[
        OfficerView | None, doc("The imaginary Officer in a 2-player game, else null.")
    ]
    bag: Annotated[
        Criminals, doc("The criminals still in the bag (public: it follows from the rest).")
    ]
    activations: Annotated[
        list[ActivationView], doc("Flipped powers waiting to be used or declined.")
    ]
    siren_arrest: Annotated[
        SirenArrestView | None, doc("The mini-bust in progress, null when there is none.")
    ]
    bust: Annotated[BustView | None, doc("The final bust in progress, null before it.")]
    moves: Annotated[
        int, doc("Public decisions taken so far; part of the step ids (see the schema).")
    ]


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
