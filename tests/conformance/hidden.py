"""Per game, what is hidden from a viewer, and how to deal it differently.

The `domain.engine.Game` interface has no hook that says which parts of a state or an event
a viewer may not know: that is exactly what ``view`` and ``redact`` must get right, so it
cannot be read back from them without making the test circular. Each game therefore gets a
small test-side adapter here, written from its rules (docs/house-rules.md): a list of
`Hidden` kinds, each able to

- ``state``: permute the cards of that kind that are hidden from ``viewer`` among the
  places hidden from it (other hands, decks, face-down cards, unplayed agents…), keeping
  everything the viewer may know;
- ``event``: deal the fields of one event that are hidden from ``viewer`` differently.

The no-leak test then asks that the viewer's view and redacted events do not change. A
fourth game adds its entry to `HIDDEN` (see docs/adding-a-game.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from domain.bonnie_clyde import events as bc_events
from domain.bonnie_clyde.cards import full_deck
from domain.bonnie_clyde.state import BonnieClydeState as BcState
from domain.fbi import events as fbi_events
from domain.fbi.cards import AGENTS, card
from domain.fbi.evolve import agents_in_play
from domain.fbi.state import FbiState
from domain.feds import events as feds_events
from domain.feds.cards import AGENTS as FEDS_AGENTS
from domain.feds.state import Choice, FedsState, Mole
from domain.match import SealRevealed
from domain.rng import Rng
from tests.example_game import game as tipoff

Viewer = int | None


def _always(seats: int, options: dict[str, Any]) -> bool:
    return True


@dataclass(frozen=True)
class Hidden:
    """One kind of hidden information; ``applies`` says whether a configuration
    (seat count, options) has any of it."""

    name: str
    state: Callable[[Any, Viewer, Rng], Any]
    event: Callable[[Any, Viewer, Rng], Any]
    applies: Callable[[int, dict[str, Any]], bool] = _always


def _same(value: Any, viewer: Viewer, rng: Rng) -> Any:
    return value


def _other(value: Any, choices: Any, rng: Rng) -> Any:
    """A value of ``choices`` different from ``value`` (``value`` when there is none)."""
    others = [c for c in choices if c != value]
    return rng.choice(others) if others else value


def _redeal(places: list[list[Any]], rng: Rng) -> list[list[Any]]:
    """The cards of ``places`` shuffled among them, each place keeping its size."""
    pool = rng.shuffled([c for place in places for c in place])
    out = []
    for place in places:
        out.append(pool[: len(place)])
        pool = pool[len(place) :]
    return out


# ---- every game: the match layer's sealed reveals -------------------------------------


def _sealed_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    if isinstance(event, SealRevealed) and event.seat != viewer and event.move is not None:
        return replace(event, move={"type": "other", "n": rng.below(100)}, salt="ab" * 16)
    return event


SEALED = Hidden("sealed reveals", _same, _sealed_event)


# ---- FBI (docs/house-rules.md#fbi-secret-agents): the deck order; other seats' chosen,
# ---- unplayed agents --------------------------------------------------------------------


def _fbi_deck_state(state: FbiState, viewer: Viewer, rng: Rng) -> FbiState:
    return replace(state, deck=rng.shuffled(state.deck))


def _fbi_deck_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    if isinstance(event, fbi_events.DeckShuffled) and event.card_ids is not None:
        return replace(event, card_ids=rng.shuffled(event.card_ids))
    return event


def _canonical(colours: list[Any]) -> list[Any]:
    return sorted(colours, key=AGENTS.index)


def _fbi_agents_state(state: FbiState, viewer: Viewer, rng: Rng) -> FbiState:
    """Another seat's unplayed agents, swapped with its unchosen ones: any choice it could
    have made (colours on the table when it chose, "2x") that leaves as many to play."""
    present: set[Any] = {card(i).colour for i in state.table}
    agents = list(state.agents)
    for seat, remaining in enumerate(state.agents):
        if seat == viewer or not remaining:
            continue
        usable: list[Any] = sorted(present | set(remaining), key=AGENTS.index)
        if len(remaining) == 2:
            first, second = rng.shuffled([*usable, "2x"])[:2]
            agents[seat] = _canonical(agents_in_play(first, second))
        else:
            agents[seat] = [rng.choice(usable)]
    return replace(state, agents=agents)


def _fbi_agents_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    if isinstance(event, fbi_events.AgentsSelected) and event.seat != viewer:
        first, second = _canonical(rng.shuffled(AGENTS)[:2])
        return replace(event, first=first, second=second)
    return event


FBI_DECK = Hidden("deck", _fbi_deck_state, _fbi_deck_event)
FBI_AGENTS = Hidden("agents", _fbi_agents_state, _fbi_agents_event)


# ---- The Feds (docs/house-rules.md#feds): each seat's hand, step-1 card and face-down
# ---- moles; the Officer's deck; face-down utility tokens ---------------------------------


def _mole(state: FedsState, index: int) -> Mole:
    mole = state.locations[index].mole
    assert mole is not None
    return mole


def _feds_cards_state(state: FedsState, viewer: Viewer, rng: Rng) -> FedsState:
    """Per other seat, its cards the viewer cannot see are dealt anew among its hand, its
    step-1 choice and its face-down moles the viewer has not peeked at."""
    spots, hands, chosen = list(state.locations), list(state.hands), list(state.chosen)
    for owner in range(state.seats):
        if owner == viewer:
            continue
        moles = [
            i
            for i, s in enumerate(spots)
            if s.mole is not None
            and s.mole.owner == owner
            and not s.mole.face_up
            and viewer not in s.mole.seen_by
        ]
        choice = chosen[owner]
        places = [hands[owner], [_mole(state, i).agent for i in moles]]
        places.append([choice.agent] if choice else [])
        hand, moled, picked = _redeal(places, rng)
        hands[owner] = hand
        for i, agent in zip(moles, moled, strict=True):
            spots[i] = replace(spots[i], mole=replace(_mole(state, i), agent=agent))
        if choice is not None:
            chosen[owner] = Choice(picked[0], choice.location)
    return replace(state, locations=spots, hands=hands, chosen=chosen)


def _feds_cards_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    hidden = (
        isinstance(event, feds_events.AgentChosen | feds_events.MolePeeked) and event.seat != viewer
    ) or (isinstance(event, feds_events.MolePlaced) and not event.face_up and event.owner != viewer)
    if hidden and event.agent is not None:
        return replace(event, agent=_other(event.agent, FEDS_AGENTS, rng))
    return event


def _feds_officer_state(state: FedsState, viewer: Viewer, rng: Rng) -> FedsState:
    if state.officer is None:
        return state
    return replace(state, officer=replace(state.officer, deck=rng.shuffled(state.officer.deck)))


def _feds_officer_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    if isinstance(event, feds_events.GameSetUp) and event.officer_deck is not None:
        return replace(event, officer_deck=rng.shuffled(event.officer_deck))
    return event


def _feds_tokens_state(state: FedsState, viewer: Viewer, rng: Rng) -> FedsState:
    spots = list(state.locations)
    down = [
        i
        for i, s in enumerate(spots)
        if s.utility_token is not None and not s.utility_token.face_up
    ]
    values = rng.shuffled([t.value for i in down if (t := spots[i].utility_token)])
    for i, value in zip(down, values, strict=True):
        token = spots[i].utility_token
        assert token is not None
        spots[i] = replace(spots[i], utility_token=replace(token, value=value))
    return replace(state, locations=spots)


def _feds_tokens_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    if not isinstance(event, feds_events.GameSetUp):
        return event
    tokens = list(event.utility_tokens)
    down = [i for i, t in enumerate(tokens) if t is not None and not t.face_up]
    values = rng.shuffled([t.value for i in down if (t := tokens[i])])
    for i, value in zip(down, values, strict=True):
        token = tokens[i]
        assert token is not None
        tokens[i] = replace(token, value=value)
    return replace(event, utility_tokens=tokens)


FEDS_CARDS = Hidden("cards", _feds_cards_state, _feds_cards_event)
FEDS_OFFICER = Hidden(
    "officer deck", _feds_officer_state, _feds_officer_event, lambda seats, _: seats == 2
)
FEDS_TOKENS = Hidden(
    "utility tokens",
    _feds_tokens_state,
    _feds_tokens_event,
    lambda _, options: options.get("city") == "new-orleans",
)


# ---- Bonnie and Clyde (docs/house-rules.md#bonnie_clyde-fbi-files-hidden): other hands,
# ---- the Case File, the FBI Files below the top, the cards under locations the viewer has
# ---- not looked at -----------------------------------------------------------------------


def _bc_cards_state(state: BcState, viewer: Viewer, rng: Rng) -> BcState:
    if not state.hands:
        return state
    searching = state.searching and state.turn_seat == viewer and not state.over
    memory = state.seen[viewer] if viewer is not None else [None] * len(state.locations)
    blind = [i for i, c in enumerate(state.locations) if c is not None and memory[i] is None]
    others = [s for s in range(state.seats) if s != viewer]
    files_below = [] if searching or not state.files else state.files[:-1]
    places: list[list[Any]] = [
        *(state.hands[s] for s in others),
        state.case_file,
        files_below,
        [state.locations[i] for i in blind],
    ]
    *dealt_hands, case_file, below, under = _redeal(places, rng)
    hands = list(state.hands)
    for seat, hand in zip(others, dealt_hands, strict=True):
        hands[seat] = hand
    files = list(state.files) if searching or not state.files else [*below, state.files[-1]]
    locations = list(state.locations)
    for i, c in zip(blind, under, strict=True):
        locations[i] = c
    return replace(state, hands=hands, case_file=case_file, files=files, locations=locations)


def _bc_cards_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    if isinstance(event, bc_events.HandDealt) and event.case_file and event.location_cards:
        others = [s for s, hand in enumerate(event.hands) if s != viewer and hand is not None]
        places = [
            *(list(event.hands[s] or []) for s in others),
            list(event.case_file),
            list(event.location_cards),
        ]
        *dealt, case_file, under = _redeal(places, rng)
        hands = list(event.hands)
        for seat, hand in zip(others, dealt, strict=True):
            hands[seat] = hand
        return replace(event, hands=hands, case_file=case_file, location_cards=under)
    secret = isinstance(
        event, bc_events.CardTakenFromFiles | bc_events.HiddenCardSeen | bc_events.HiddenCardTaken
    ) or (isinstance(event, bc_events.CardDrawn) and event.source == "case_file")
    if secret and event.seat != viewer and event.card is not None:
        return replace(event, card=_other(event.card, full_deck(), rng))
    return event


BC_CARDS = Hidden("cards", _bc_cards_state, _bc_cards_event)


# ---- Tip-off, the example game: other hands and the deck ---------------------------------


def _tipoff_state(state: tipoff.TipoffState, viewer: Viewer, rng: Rng) -> tipoff.TipoffState:
    others = [s for s in range(state.seats) if s != viewer]
    *dealt, deck = _redeal([*(state.hands[s] for s in others), state.deck], rng)
    hands = list(state.hands)
    for seat, hand in zip(others, dealt, strict=True):
        hands[seat] = sorted(hand)
    return replace(state, hands=hands, deck=deck)


def _tipoff_event(event: Any, viewer: Viewer, rng: Rng) -> Any:
    if isinstance(event, tipoff.Dealt) and event.deck is not None:
        others = [s for s in range(event.seats) if s != viewer]
        *dealt, deck = _redeal([*(list(event.hands[s] or []) for s in others), event.deck], rng)
        hands = list(event.hands)
        for seat, hand in zip(others, dealt, strict=True):
            hands[seat] = sorted(hand)
        return replace(event, hands=hands, deck=deck)
    if isinstance(event, tipoff.CardsDrawn) and event.seat != viewer and event.cards:
        return replace(event, cards=[_other(c, tipoff.CARDS, rng) for c in event.cards])
    return event


TIPOFF_CARDS = Hidden("cards", _tipoff_state, _tipoff_event)


HIDDEN: dict[str, list[Hidden]] = {
    "fbi": [FBI_DECK, FBI_AGENTS, SEALED],
    "feds": [FEDS_CARDS, FEDS_OFFICER, FEDS_TOKENS, SEALED],
    "bonnie_clyde": [BC_CARDS],  # no sealed step
    "tipoff": [TIPOFF_CARDS, SEALED],
}
