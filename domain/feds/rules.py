"""Who acts (`pending`), what they may do (`legal`) and what it does (`decide`)."""

from __future__ import annotations

from itertools import combinations
from typing import Literal, TypeVar

from domain.engine import Awaiting
from domain.errors import IllegalMove, WrongPhase
from domain.feds.arrests import siren_take
from domain.feds.cards import (
    AGENTS,
    CITY_CARDS,
    COLOURS,
    LOCATION_INDEX,
    LOCATIONS,
    POWER,
    Colour,
    Power,
    criminals_of,
)
from domain.feds.commands import (
    ArrestColour,
    ArrestCriminal,
    ArrestCriminals,
    ChooseAgent,
    DeclinePower,
    DrawCriminal,
    FedsCommand,
    FlipMole,
    MoveCriminal,
    PeekAtMole,
    RedeployAgent,
    SwapSirens,
)
from domain.feds.events import (
    AgentChosen,
    AgentRedeployed,
    CriminalDrawn,
    CriminalMoved,
    CriminalsArrested,
    FedsEvent,
    MolePeeked,
    PowerDeclined,
    PowerUsed,
    SirensSwapped,
)
from domain.feds.evolve import evolve
from domain.feds.flow import automatic, bust_chooser, bust_done, flip_events
from domain.feds.state import Activation, FedsState
from domain.kit import Commands, on, settle
from domain.rng import Rng

StepKind = Literal["agents", "power", "siren", "bust"]
PowerUsedOrDeclined = TypeVar("PowerUsedOrDeclined", PowerUsed, PowerDeclined)


def step_kind(state: FedsState, seat: int) -> StepKind | None:
    """What ``seat`` is awaited for now, if anything."""
    if state.phase == "over":
        return None
    if state.phase == "choose":
        return "agents" if 0 <= seat < state.seats and state.chosen[seat] is None else None
    if state.activations:
        return "power" if state.activations[-1].seat == seat else None
    if state.siren_takers:
        return "siren" if state.siren_takers[0].owner == seat else None
    if state.phase == "bust" and not bust_done(state) and bust_chooser(state) == seat:
        return "bust"
    return None


def pending(state: FedsState) -> list[Awaiting]:
    r = f"r{state.round}"
    if state.phase == "over":
        return []
    if state.phase == "choose":
        step = f"{r}.agents"
        return [
            Awaiting(seat, step, sealed=True)
            for seat in range(state.seats)
            if state.chosen[seat] is None
        ]
    if state.activations:
        return [Awaiting(state.activations[-1].seat, f"{r}.power.{state.moves}")]
    if state.siren_takers:
        owner = state.siren_takers[0].owner
        return [] if owner is None else [Awaiting(owner, f"{r}.siren.{state.moves}")]
    if state.phase == "bust" and not bust_done(state):
        chooser = bust_chooser(state)
        return [] if chooser is None else [Awaiting(chooser, f"bust.{state.moves}")]
    return []


# ---- legal moves -------------------------------------------------------------------------


def legal(state: FedsState, seat: int) -> list[FedsCommand]:
    kind = step_kind(state, seat)
    if kind == "agents":
        return [
            ChooseAgent(agent=agent, location=LOCATIONS[index])
            for agent in AGENTS
            if agent in state.hands[seat]
            for index, spot in enumerate(state.locations)
            if not spot.closed
        ]
    if kind == "power":
        return _power_moves(state, state.activations[-1])
    if kind == "siren":
        return [ArrestCriminals(colours=list(pick)) for pick in _siren_picks(state)]
    if kind == "bust":
        criminals = state.locations[state.bust_location].criminals
        return [ArrestColour(colour=colour) for colour in criminals.present()]
    return []


def _power_moves(state: FedsState, activation: Activation) -> list[FedsCommand]:
    power = POWER[activation.agent]
    city = CITY_CARDS[state.city]
    seat = activation.seat
    here = activation.location
    moves: list[FedsCommand] = []
    if power == "infiltrate" and city.infiltrate == "flip":
        moves += [
            FlipMole(location=LOCATIONS[index])
            for index, spot in enumerate(state.locations)
            if index != here and spot.mole is not None
        ]
    elif power == "infiltrate":
        moves += [
            PeekAtMole(location=LOCATIONS[index])
            for index in range(len(LOCATIONS))
            if _peekable(state, seat, index)
        ]
    elif power == "redeploy":
        for index, spot in enumerate(state.locations):
            for card in spot.field:
                if card.owner == seat:
                    moves += [
                        RedeployAgent(agent=card.agent, to_location=LOCATIONS[target])
                        for target in range(len(LOCATIONS))
                        if target != index
                    ]
        if state.sirens:
            # The sirens option, and new-orleans, which brings its own
            # (docs/house-rules.md#feds-redeploy-siren-swap).
            sirens = [i for i, spot in enumerate(state.locations) if spot.siren is not None]
            moves += [
                SwapSirens(first=LOCATIONS[a], second=LOCATIONS[b])
                for a, b in combinations(sirens, 2)
            ]
    elif power == "patrol":
        criminals = state.locations[here].criminals
        if city.patrol == "move":
            moves += [
                MoveCriminal(colour=colour, to_location=LOCATIONS[target])
                for colour in criminals.present()
                for target in _adjacent(here)
            ]
        elif city.patrol == "arrest":
            moves += [ArrestCriminal(colour=colour) for colour in criminals.present()]
        elif state.bag.total() > 0:
            moves.append(DrawCriminal())
    moves.append(DeclinePower())
    return moves


def _adjacent(index: int) -> list[int]:
    return [i for i in (index - 1, index + 1) if 0 <= i < len(LOCATIONS)]


def _peekable(state: FedsState, seat: int, index: int) -> bool:
    """Detroit Infiltrate targets another player's face-down mole that ``seat`` has not seen
    yet (decided: looking at your own mole, the Officer's face-up one or a mole you already
    know would be a no-op)."""
    mole = state.locations[index].mole
    return (
        mole is not None
        and not mole.face_up
        and mole.owner is not None
        and mole.owner != seat
        and seat not in mole.seen_by
    )


def _siren_picks(state: FedsState) -> list[tuple[Colour, ...]]:
    if state.siren_location is None:
        return []
    criminals = state.locations[state.siren_location].criminals
    count = siren_take(criminals, state.siren_takers[0].criminals)
    return list(combinations(criminals.present(), count))


# ---- decisions: one handler per command --------------------------------------------------

_WHAT: dict[str, str] = {
    "agents": "choose an agent and a location (feds.choose_agent)",
    "power": "use or decline the power of the special agent just flipped",
    "siren": "arrest criminals at the mini-bust (feds.arrest_criminals)",
    "bust": "arrest all criminals of one colour (feds.arrest_colour)",
}


def decide(state: FedsState, seat: int, command: FedsCommand, rng: Rng) -> list[FedsEvent]:
    return apply(state, seat, command, rng)[0]


def apply(
    state: FedsState, seat: int, command: FedsCommand, rng: Rng
) -> tuple[list[FedsEvent], FedsState]:
    """`decide`'s events, with the automatic ones that follow, and the state they lead to
    (bots simulate with it)."""
    events = COMMANDS.decide(state, seat, command, rng)
    return settle(evolve, automatic, state, events)


def _index(location: str) -> int:
    """A command's location as an index; a name that is not a location is refused (the API
    decodes strictly, but the domain refuses whatever it is given)."""
    index = LOCATION_INDEX.get(location)  # type: ignore[call-overload]
    if index is None:
        raise IllegalMove(f"{location!r} is not a location")
    return int(index)


def _choose_agent(state: FedsState, seat: int, command: ChooseAgent, rng: Rng) -> list[FedsEvent]:
    if command.agent not in state.hands[seat]:
        raise IllegalMove(f"{command.agent} is not in your hand")
    if state.locations[_index(command.location)].closed:
        raise IllegalMove(f"the {command.location} is closed")
    return [AgentChosen(seat=seat, location=command.location, agent=command.agent)]


# ---- the powers of a flipped special agent (the city card's column; who uses them:
# ---- docs/house-rules.md#feds-power-user) ------------------------------------------------


def _active(state: FedsState) -> tuple[Activation, Power]:
    """The activation being answered and its power."""
    activation = state.activations[-1]
    power = POWER[activation.agent]
    if power is None:  # pragma: no cover - only special agents activate
        raise IllegalMove("this agent has no power")
    return activation, power


def _power_used(state: FedsState) -> PowerUsed:
    return _answered(state, PowerUsed)


def _decline_power(state: FedsState, seat: int, command: DeclinePower, rng: Rng) -> list[FedsEvent]:
    return [_answered(state, PowerDeclined)]


def _answered(state: FedsState, kind: type[PowerUsedOrDeclined]) -> PowerUsedOrDeclined:
    """The event saying the current activation's power was used (or declined)."""
    activation, power = _active(state)
    return kind(
        seat=activation.seat,
        owner=activation.owner,
        agent=activation.agent,
        power=power,
        location=LOCATIONS[activation.location],
    )


def _flip_mole(state: FedsState, seat: int, command: FlipMole, rng: Rng) -> list[FedsEvent]:
    activation, power = _active(state)
    city = CITY_CARDS[state.city]
    _require(power == "infiltrate" and city.infiltrate == "flip", power, "flip a mole")
    target = _index(command.location)
    if target == activation.location:
        raise IllegalMove("Infiltrate flips the mole at another location")
    if state.locations[target].mole is None:
        raise IllegalMove(f"there is no mole at the {command.location}")
    return [_power_used(state), *flip_events(state, target, "infiltrate", flipper=seat)]


def _peek_at_mole(state: FedsState, seat: int, command: PeekAtMole, rng: Rng) -> list[FedsEvent]:
    _, power = _active(state)
    city = CITY_CARDS[state.city]
    _require(power == "infiltrate" and city.infiltrate == "peek", power, "peek at a mole")
    target = _index(command.location)
    mole = state.locations[target].mole
    if mole is None or not _peekable(state, seat, target):
        raise IllegalMove(f"no other player's unseen face-down mole at the {command.location}")
    peeked = MolePeeked(seat=seat, location=command.location, owner=mole.owner, agent=mole.agent)
    return [_power_used(state), peeked]


def _redeploy_agent(
    state: FedsState, seat: int, command: RedeployAgent, rng: Rng
) -> list[FedsEvent]:
    _, power = _active(state)
    _require(power == "redeploy", power, "redeploy an agent")
    source = next(
        (
            index
            for index, spot in enumerate(state.locations)
            for card in spot.field
            if card.owner == seat and card.agent == command.agent
        ),
        None,
    )
    if source is None:
        raise IllegalMove(f"you have no {command.agent} in a field")
    if _index(command.to_location) == source:
        raise IllegalMove("Redeploy moves the agent to another location")
    redeployed = AgentRedeployed(
        owner=seat,
        agent=command.agent,
        from_location=LOCATIONS[source],
        to_location=command.to_location,
    )
    return [_power_used(state), redeployed]


def _swap_sirens(state: FedsState, seat: int, command: SwapSirens, rng: Rng) -> list[FedsEvent]:
    _, power = _active(state)
    _require(power == "redeploy" and state.sirens, power, "swap siren tokens")
    first = state.locations[_index(command.first)]
    second = state.locations[_index(command.second)]
    if command.first == command.second or first.siren is None or second.siren is None:
        raise IllegalMove("swap the siren tokens of two locations that both have one")
    return [_power_used(state), SirensSwapped(first=command.first, second=command.second)]


def _move_criminal(state: FedsState, seat: int, command: MoveCriminal, rng: Rng) -> list[FedsEvent]:
    activation, power = _active(state)
    here = activation.location
    _require(
        power == "patrol" and CITY_CARDS[state.city].patrol == "move", power, "move a criminal"
    )
    _require_criminal(state.locations[here].criminals.of(command.colour), command.colour, here)
    if _index(command.to_location) not in _adjacent(here):
        raise IllegalMove(f"the {command.to_location} is not next to the {LOCATIONS[here]}")
    moved = CriminalMoved(
        colour=command.colour, from_location=LOCATIONS[here], to_location=command.to_location
    )
    return [_power_used(state), moved]


def _arrest_criminal(
    state: FedsState, seat: int, command: ArrestCriminal, rng: Rng
) -> list[FedsEvent]:
    activation, power = _active(state)
    here = activation.location
    allowed = power == "patrol" and CITY_CARDS[state.city].patrol == "arrest"
    _require(allowed, power, "arrest a criminal")
    _require_criminal(state.locations[here].criminals.of(command.colour), command.colour, here)
    arrested = CriminalsArrested(
        owner=seat,
        location=LOCATIONS[here],
        criminals=criminals_of([command.colour]),
        cause="patrol",
    )
    return [_power_used(state), arrested]


def _draw_criminal(state: FedsState, seat: int, command: DrawCriminal, rng: Rng) -> list[FedsEvent]:
    activation, power = _active(state)
    _require(
        power == "patrol" and CITY_CARDS[state.city].patrol == "draw", power, "draw a criminal"
    )
    bag = state.bag
    if bag.total() == 0:
        raise IllegalMove("the bag is empty")
    # A blind draw: each criminal left in the bag is equally likely.
    pick = rng.below(bag.total())
    for colour in COLOURS:
        if pick < bag.of(colour):
            drawn = CriminalDrawn(colour=colour, location=LOCATIONS[activation.location])
            return [_power_used(state), drawn]
        pick -= bag.of(colour)
    raise IllegalMove("the bag is empty")  # pragma: no cover - the pick is below the total


def _require(allowed: bool, power: str, what: str) -> None:
    if not allowed:
        raise IllegalMove(f"this {power} cannot {what} with this city card")


def _require_criminal(count: int, colour: str, here: int) -> None:
    if count <= 0:
        raise IllegalMove(f"no {colour} criminal at the {LOCATIONS[here]}")


def _siren_arrest(
    state: FedsState, seat: int, command: ArrestCriminals, rng: Rng
) -> list[FedsEvent]:
    index = state.siren_location
    if index is None:  # pragma: no cover - takers always come with their location
        raise WrongPhase("no mini-bust in progress")
    criminals = state.locations[index].criminals
    count = siren_take(criminals, state.siren_takers[0].criminals)
    colours = command.colours
    if len(set(colours)) != len(colours):
        raise IllegalMove("the criminals of a mini-bust must be of different colours")
    missing = [c for c in colours if criminals.of(c) == 0]
    if missing:
        raise IllegalMove(f"no {missing[0]} criminal at the {LOCATIONS[index]}")
    if len(colours) != count:
        raise IllegalMove(f"arrest exactly {count} criminal(s) of different colours")
    return [
        CriminalsArrested(
            owner=seat,
            location=LOCATIONS[index],
            criminals=criminals_of(list(colours)),
            cause="siren",
        )
    ]


def _bust_arrest(state: FedsState, seat: int, command: ArrestColour, rng: Rng) -> list[FedsEvent]:
    index = state.bust_location
    criminals = state.locations[index].criminals
    count = criminals.of(command.colour)
    if count == 0:
        raise IllegalMove(f"no {command.colour} criminal at the {LOCATIONS[index]}")
    return [
        CriminalsArrested(
            owner=seat,
            location=LOCATIONS[index],
            criminals=criminals_of([command.colour] * count),
            cause="bust",
        )
    ]


COMMANDS = Commands[FedsState, FedsEvent](
    "The Feds",
    {
        ChooseAgent: on("agents", _choose_agent),
        FlipMole: on("power", _flip_mole),
        PeekAtMole: on("power", _peek_at_mole),
        RedeployAgent: on("power", _redeploy_agent),
        SwapSirens: on("power", _swap_sirens),
        MoveCriminal: on("power", _move_criminal),
        ArrestCriminal: on("power", _arrest_criminal),
        DrawCriminal: on("power", _draw_criminal),
        DeclinePower: on("power", _decline_power),
        ArrestCriminals: on("siren", _siren_arrest),
        ArrestColour: on("bust", _bust_arrest),
    },
    over=lambda state: state.phase == "over",
    step=step_kind,
    wrong_step_message=lambda seat, _command, now, _wanted: f"seat {seat} must {_WHAT[now]}",
)
