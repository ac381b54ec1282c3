"""The fold: ``evolve(state, event) -> new state``, one handler per event type.

Pure; the input state is never changed (lists are copied before they change, untouched
parts are shared)."""

from __future__ import annotations

from msgspec.structs import replace

from domain.feds.cards import AGENTS, CRIMINALS, LOCATION_INDEX, Agent, Criminals
from domain.feds.events import (
    AgentChosen,
    AgentRedeployed,
    ArrestsBegan,
    BadgePassed,
    CriminalDrawn,
    CriminalMoved,
    CriminalsArrested,
    GameEnded,
    GameSetUp,
    LocationBusted,
    LocationClosed,
    LocationReopened,
    MoleFlipped,
    MolePeeked,
    MolePlaced,
    PoliceCarMoved,
    PowerDeclined,
    PowerUsed,
    SirenSounded,
    SirensSwapped,
    UtilityTokenWon,
)
from domain.feds.state import (
    Activation,
    Choice,
    FedsState,
    FieldAgent,
    Mole,
    Officer,
    SirenTaker,
    Spot,
    UtilityToken,
)
from domain.kit import Fold, unredacted


def _set_up(event: GameSetUp) -> FedsState:
    spots: list[Spot] = []
    on_board = Criminals()
    for index, criminals in enumerate(event.criminals):
        face = event.utility_tokens[index]
        token: UtilityToken | None = None
        if face is not None:
            token = UtilityToken(unredacted(face.value, "face-down utility token"), face.face_up)
        spots.append(
            Spot(criminals=criminals, siren=event.siren_tokens[index], utility_token=token)
        )
        on_board = on_board.plus(criminals)
    officer: Officer | None = None
    if event.officer_deck_size:
        officer = Officer(deck=list(unredacted(event.officer_deck, "Officer deck")))
    n = event.seats
    return FedsState(
        seats=n,
        city=event.city,
        sirens=event.sirens,
        badge=event.badge,
        locations=spots,
        hands=[list(AGENTS) for _ in range(n)],
        jails=[Criminals() for _ in range(n)],
        utility_tokens=[[] for _ in range(n)],
        bag=CRIMINALS.minus(on_board),
        officer=officer,
        chosen=[None] * n,
    )


def _with_spot(state: FedsState, index: int, spot: Spot) -> FedsState:
    locations = list(state.locations)
    locations[index] = spot
    return replace(state, locations=locations)


def _agent_chosen(state: FedsState, event: AgentChosen) -> FedsState:
    agent: Agent = unredacted(event.agent, "agent choice")
    hands = list(state.hands)
    hands[event.seat] = [a for a in hands[event.seat] if a != agent]
    chosen = list(state.chosen)
    chosen[event.seat] = Choice(agent, LOCATION_INDEX[event.location])
    phase = "deploy" if all(c is not None for c in chosen) else state.phase
    return replace(state, hands=hands, chosen=chosen, phase=phase)


def _mole_flipped(state: FedsState, event: MoleFlipped) -> FedsState:
    index = LOCATION_INDEX[event.location]
    spot = state.locations[index]
    field = [*spot.field, FieldAgent(event.owner, event.agent)]
    state = _with_spot(state, index, replace(spot, mole=None, field=field))
    if event.power_for is not None and event.owner is not None:
        activation = Activation(event.power_for, event.owner, event.agent, index)
        state = replace(state, activations=[*state.activations, activation])
    return state


def _mole_placed(state: FedsState, event: MolePlaced) -> FedsState:
    agent: Agent = unredacted(event.agent, "mole placement")
    index = LOCATION_INDEX[event.location]
    mole = Mole(event.owner, agent, face_up=event.face_up)
    state = _with_spot(state, index, replace(state.locations[index], mole=mole))
    if event.owner is not None:
        chosen = list(state.chosen)
        chosen[event.owner] = None
        state = replace(state, chosen=chosen)
    elif state.officer is not None:
        state = replace(state, officer=replace(state.officer, deck=state.officer.deck[1:]))
    return state


def _police_car_moved(state: FedsState, event: PoliceCarMoved) -> FedsState:
    officer = state.officer
    if officer is None:
        raise ValueError("no Officer in this game")
    # The revealed card leaves the deck when it is placed (`_mole_placed`).
    officer = replace(officer, car=LOCATION_INDEX[event.to_location], deployed=True)
    return replace(state, officer=officer)


def _power_resolved(state: FedsState, event: PowerUsed | PowerDeclined) -> FedsState:
    return replace(state, activations=state.activations[:-1], moves=state.moves + 1)


def _mole_peeked(state: FedsState, event: MolePeeked) -> FedsState:
    index = LOCATION_INDEX[event.location]
    spot = state.locations[index]
    if spot.mole is None:
        raise ValueError("no mole to peek at")
    mole = replace(spot.mole, seen_by=[*spot.mole.seen_by, event.seat])
    return _with_spot(state, index, replace(spot, mole=mole))


def _agent_redeployed(state: FedsState, event: AgentRedeployed) -> FedsState:
    source = LOCATION_INDEX[event.from_location]
    target = LOCATION_INDEX[event.to_location]
    moved = FieldAgent(event.owner, event.agent)
    spot = state.locations[source]
    state = _with_spot(state, source, replace(spot, field=[a for a in spot.field if a != moved]))
    spot = state.locations[target]
    return _with_spot(state, target, replace(spot, field=[*spot.field, moved]))


def _sirens_swapped(state: FedsState, event: SirensSwapped) -> FedsState:
    first = LOCATION_INDEX[event.first]
    second = LOCATION_INDEX[event.second]
    a, b = state.locations[first], state.locations[second]
    state = _with_spot(state, first, replace(a, siren=b.siren))
    return _with_spot(state, second, replace(b, siren=a.siren))


def _criminal_moved(state: FedsState, event: CriminalMoved) -> FedsState:
    source = LOCATION_INDEX[event.from_location]
    target = LOCATION_INDEX[event.to_location]
    spot = state.locations[source]
    state = _with_spot(state, source, replace(spot, criminals=spot.criminals.add(event.colour, -1)))
    spot = state.locations[target]
    return _with_spot(state, target, replace(spot, criminals=spot.criminals.add(event.colour)))


def _criminal_drawn(state: FedsState, event: CriminalDrawn) -> FedsState:
    index = LOCATION_INDEX[event.location]
    spot = state.locations[index]
    state = _with_spot(state, index, replace(spot, criminals=spot.criminals.add(event.colour)))
    return replace(state, bag=state.bag.add(event.colour, -1))


def _criminals_arrested(state: FedsState, event: CriminalsArrested) -> FedsState:
    index = LOCATION_INDEX[event.location]
    spot = state.locations[index]
    left = spot.criminals.minus(event.criminals)
    state = _with_spot(state, index, replace(spot, criminals=left))
    if event.owner is None:
        if state.officer is None:
            raise ValueError("no Officer in this game")
        officer = replace(state.officer, jail=state.officer.jail.plus(event.criminals))
        state = replace(state, officer=officer)
    else:
        jails = list(state.jails)
        jails[event.owner] = jails[event.owner].plus(event.criminals)
        state = replace(state, jails=jails)
    if event.cause == "siren":
        # A mini-bust ends early when its location runs out of criminals.
        takers = state.siren_takers[1:] if left.total() else []
        return replace(
            state,
            siren_takers=takers,
            siren_location=state.siren_location if takers else None,
            moves=state.moves + 1,
        )
    if event.cause == "bust":
        return replace(state, bust_turn=state.bust_turn + 1, moves=state.moves + 1)
    return state


def _siren_sounded(state: FedsState, event: SirenSounded) -> FedsState:
    index = LOCATION_INDEX[event.location]
    state = _with_spot(state, index, replace(state.locations[index], siren=None))
    takers = [SirenTaker(share.owner, share.criminals) for share in event.shares]
    return replace(state, siren_takers=takers, siren_location=index if takers else None)


def _location_closed(state: FedsState, event: LocationClosed) -> FedsState:
    index = LOCATION_INDEX[event.location]
    return _with_spot(state, index, replace(state.locations[index], closed=True))


def _location_reopened(state: FedsState, event: LocationReopened) -> FedsState:
    index = LOCATION_INDEX[event.location]
    return _with_spot(state, index, replace(state.locations[index], closed=False))


def _badge_passed(state: FedsState, event: BadgePassed) -> FedsState:
    officer = replace(state.officer, deployed=False) if state.officer else None
    return replace(state, badge=event.seat, round=event.round, phase="choose", officer=officer)


def _arrests_began(state: FedsState, event: ArrestsBegan) -> FedsState:
    return replace(state, phase="bust", bust_location=-1, bust_order=[], bust_turn=0)


def _location_busted(state: FedsState, event: LocationBusted) -> FedsState:
    return replace(
        state,
        bust_location=LOCATION_INDEX[event.location],
        bust_order=list(event.order),
        bust_turn=0,
    )


def _utility_token_won(state: FedsState, event: UtilityTokenWon) -> FedsState:
    index = LOCATION_INDEX[event.location]
    state = _with_spot(state, index, replace(state.locations[index], utility_token=None))
    if event.owner is None:
        if state.officer is None:
            raise ValueError("no Officer in this game")
        tokens = [*state.officer.utility_tokens, event.value]
        return replace(state, officer=replace(state.officer, utility_tokens=tokens))
    won = list(state.utility_tokens)
    won[event.owner] = [*won[event.owner], event.value]
    return replace(state, utility_tokens=won)


def _game_ended(state: FedsState, event: GameEnded) -> FedsState:
    return replace(state, phase="over")


evolve = Fold[FedsState](
    "The Feds",
    (GameSetUp, _set_up),
    {
        AgentChosen: _agent_chosen,
        MoleFlipped: _mole_flipped,
        MolePlaced: _mole_placed,
        PoliceCarMoved: _police_car_moved,
        PowerUsed: _power_resolved,
        PowerDeclined: _power_resolved,
        MolePeeked: _mole_peeked,
        AgentRedeployed: _agent_redeployed,
        SirensSwapped: _sirens_swapped,
        CriminalMoved: _criminal_moved,
        CriminalDrawn: _criminal_drawn,
        CriminalsArrested: _criminals_arrested,
        SirenSounded: _siren_sounded,
        LocationClosed: _location_closed,
        LocationReopened: _location_reopened,
        BadgePassed: _badge_passed,
        ArrestsBegan: _arrests_began,
        LocationBusted: _location_busted,
        UtilityTokenWon: _utility_token_won,
        GameEnded: _game_ended,
    },
)
