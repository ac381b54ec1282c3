"""The fold of FBI events into `FbiState`: one handler per event type (docs/house-rules.md#fbi).

Pure: the input state is never changed (lists are copied before they change)."""

from __future__ import annotations

from msgspec.structs import replace

from domain.fbi.cards import DOUBLE_AGENT, Agent, Colour
from domain.fbi.events import (
    AgentPassed,
    AgentsSelected,
    ArrestOrderDetermined,
    CardReleased,
    CardsPlaced,
    CharacterArrested,
    DeckShuffled,
    GameEnded,
    GameStarted,
    NothingReleased,
    PurpleCardsDealt,
    TurnStarted,
)
from domain.fbi.state import FbiState, SeatRelease
from domain.kit import Fold, unredacted


def agents_in_play(first: Agent, second: Agent) -> list[Colour]:
    """The colours two selected agents arrest with: "2x" + colour is that colour twice."""
    colours = [a for a in (first, second) if a != DOUBLE_AGENT]
    return [colours[0], colours[0]] if len(colours) == 1 else colours


def _game_started(event: GameStarted) -> FbiState:
    return FbiState(
        seats=event.seats,
        variant=event.variant,
        slammers=[[] for _ in range(event.seats)],
        agents=[[] for _ in range(event.seats)],
        played=[[] for _ in range(event.seats)],
    )


def _purple_cards_dealt(state: FbiState, event: PurpleCardsDealt) -> FbiState:
    slammers = [
        [*own, *(c.id for c in dealt)]
        for own, dealt in zip(state.slammers, event.slammers, strict=True)
    ]
    return replace(state, slammers=slammers)


def _deck_shuffled(state: FbiState, event: DeckShuffled) -> FbiState:
    deck = unredacted(event.card_ids, "deck shuffle")
    return replace(state, deck=list(deck), phase="between_turns")


def _turn_started(state: FbiState, event: TurnStarted) -> FbiState:
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


def _cards_placed(state: FbiState, event: CardsPlaced) -> FbiState:
    ids = [c.id for c in event.cards]
    if state.deck[: len(ids)] != ids:
        raise ValueError("placed cards are not the top of the deck")
    return replace(state, deck=state.deck[len(ids) :], table=[*state.table, *ids], phase="release")


def _card_released(state: FbiState, event: CardReleased) -> FbiState:
    slammers = list(state.slammers)
    slammers[event.seat] = [i for i in slammers[event.seat] if i != event.card.id]
    return replace(
        state,
        slammers=slammers,
        released=[*state.released, event.card.id],
        releases=[*state.releases, SeatRelease(seat=event.seat, card_id=event.card.id)],
    )


def _nothing_released(state: FbiState, event: NothingReleased) -> FbiState:
    return replace(state, releases=[*state.releases, SeatRelease(seat=event.seat, card_id=None)])


def _arrest_order_determined(state: FbiState, event: ArrestOrderDetermined) -> FbiState:
    return replace(state, arrest_order=list(event.order), phase="agents")


def _agents_selected(state: FbiState, event: AgentsSelected) -> FbiState:
    first: Agent = unredacted(event.first, "agent selection")
    second: Agent = unredacted(event.second, "agent selection")
    agents = list(state.agents)
    agents[event.seat] = agents_in_play(first, second)
    phase = "arrest" if all(agents) else state.phase
    return replace(state, agents=agents, phase=phase)


def _agent_played(state: FbiState, event: CharacterArrested | AgentPassed) -> FbiState:
    """The agent leaves the seat's hand for its played pile; the last one ends the turn."""
    agents = list(state.agents)
    remaining = list(agents[event.seat])
    remaining.remove(event.agent)
    agents[event.seat] = remaining
    played = list(state.played)
    played[event.seat] = [*played[event.seat], event.agent]
    index = state.arrest_index + 1
    phase = "between_turns" if index == 2 * state.seats else state.phase
    return replace(state, agents=agents, played=played, arrest_index=index, phase=phase)


def _character_arrested(state: FbiState, event: CharacterArrested) -> FbiState:
    state = _agent_played(state, event)
    slammers = list(state.slammers)
    slammers[event.seat] = [*slammers[event.seat], event.card.id]
    table = [i for i in state.table if i != event.card.id]
    return replace(state, slammers=slammers, table=table)


def _game_ended(state: FbiState, event: GameEnded) -> FbiState:
    return replace(state, phase="over", bonuses=list(event.bonuses))


evolve = Fold[FbiState](
    "FBI",
    (GameStarted, _game_started),
    {
        PurpleCardsDealt: _purple_cards_dealt,
        DeckShuffled: _deck_shuffled,
        TurnStarted: _turn_started,
        CardsPlaced: _cards_placed,
        CardReleased: _card_released,
        NothingReleased: _nothing_released,
        ArrestOrderDetermined: _arrest_order_determined,
        AgentsSelected: _agents_selected,
        CharacterArrested: _character_arrested,
        AgentPassed: _agent_played,
        GameEnded: _game_ended,
    },
)
