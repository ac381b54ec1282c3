"""Tip-off, 2–4 players: the smallest real game behind the uniform `domain.engine.Game`.

Rules. 18 cards (values 1 to 9, twice) are shuffled; each seat is dealt ``hand_size``
cards, hidden from the others; the rest is the face-down deck. Each round:

1. Stake (sealed): every seat secretly stakes one card of its hand. Once all are revealed
   the single highest stake wins: its owner scores the sum of the staked cards. A tie for
   the highest wins nothing. Staked cards leave the game face up.
2. Draw (public move): the round's winner draws 0, 1 or 2 cards from the deck, unseen by
   the others (at most what the deck holds). No winner, or an empty deck: no draw.

The game ends when a round ends with some hand empty; the most points wins.

Hidden: other seats' hands (a seat sees their sizes), the deck order (everyone sees its
size) and, until every seat has revealed, the stakes (the match layer's commit–reveal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec
from msgspec.structs import replace

from domain.budget import Budget
from domain.engine import Awaiting, Game, HouseRule, Outcome
from domain.errors import IllegalMove
from domain.kit import Assembled, Bots, Commands, Fold, on, ranking, settle, unredacted
from domain.rng import Rng

CARDS = tuple(sorted(list(range(1, 10)) * 2))
MAX_DRAW = 2

# What Tip-off's own rules leave open, decided once (served with its rules document).
HOUSE_RULES = (
    HouseRule(
        "tied-stakes",
        "Stake",
        "When two or more seats share the highest stake, nobody wins the round: the staked "
        "cards still leave the game and nobody draws.",
    ),
    HouseRule(
        "short-deck",
        "Draw",
        "The winner may draw at most what the deck still holds; with an empty deck there is "
        "no draw step.",
    ),
)
Phase = Literal["stake", "draw", "over"]


class TipoffOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``hand_size``: cards dealt to each seat."""

    hand_size: Annotated[int, msgspec.Meta(ge=2, le=4)] = 3


# ---- commands (imperative) and events (past tense); tags are stable and prefixed --------


class Stake(msgspec.Struct, frozen=True, tag="tipoff.stake", tag_field="type"):
    """Sealed: stake this card of your hand."""

    card: int


class Draw(msgspec.Struct, frozen=True, tag="tipoff.draw", tag_field="type"):
    """The round's winner draws ``count`` cards (0 to 2) from the deck."""

    count: int


class Dealt(msgspec.Struct, frozen=True, tag="tipoff.dealt", tag_field="type"):
    """``hands[s]`` is told to seat ``s`` only; ``deck`` (top first) to nobody in play."""

    seats: int
    hands: list[list[int] | None]
    deck_size: int
    deck: list[int] | None = None


class CardStaked(msgspec.Struct, frozen=True, tag="tipoff.card_staked", tag_field="type"):
    """Public: it becomes an event only once every stake of the round is revealed."""

    seat: int
    card: int


class RoundWon(msgspec.Struct, frozen=True, tag="tipoff.round_won", tag_field="type"):
    round: int
    winner: int | None
    points: int


class CardsDrawn(msgspec.Struct, frozen=True, tag="tipoff.cards_drawn", tag_field="type"):
    """``cards`` is told to the drawing seat only; the count is public."""

    seat: int
    count: int
    cards: list[int] | None = None


TipoffCommand = Stake | Draw
TipoffEvent = Dealt | CardStaked | RoundWon | CardsDrawn


class TipoffState(msgspec.Struct, frozen=True):
    seats: int
    hands: list[list[int]]
    deck: list[int]
    points: list[int]
    stakes: list[int | None]
    out: list[int] = []
    round: int = 1
    phase: Phase = "stake"
    winner: int | None = None


class TipoffView(msgspec.Struct, frozen=True, tag="tipoff", tag_field="game"):
    """``hand`` is the viewer's own (None for a spectator); ``out`` the staked cards so far."""

    seat: int | None
    seats: int
    round: int
    phase: Phase
    hand: list[int] | None
    hand_sizes: list[int]
    deck_size: int
    points: list[int]
    out: list[int]
    winner: int | None


class TipoffRules(msgspec.Struct, frozen=True, tag="tipoff", tag_field="game"):
    title: str
    description: str
    min_seats: int
    max_seats: int
    cards: list[int]
    max_draw: int


# ---- the rules: one handler per event, one per command (the kit's tables) ---------------


def _dealt(event: Dealt) -> TipoffState:
    hands = [list(unredacted(hand, "deal")) for hand in event.hands]
    deck = list(unredacted(event.deck, "deal"))
    n = event.seats
    return TipoffState(n, hands, deck, [0] * n, [None] * n)


def _card_staked(state: TipoffState, event: CardStaked) -> TipoffState:
    hands, stakes = list(state.hands), list(state.stakes)
    hand = list(hands[event.seat])
    hand.remove(event.card)
    hands[event.seat], stakes[event.seat] = hand, event.card
    return replace(state, hands=hands, stakes=stakes)


def _round_won(state: TipoffState, event: RoundWon) -> TipoffState:
    points = list(state.points)
    if event.winner is not None:
        points[event.winner] += event.points
    out = sorted([*state.out, *(c for c in state.stakes if c is not None)])
    done = replace(state, points=points, out=out, stakes=[None] * state.seats)
    if event.winner is not None and state.deck:
        return replace(done, phase="draw", winner=event.winner)
    return _next_round(done)


def _cards_drawn(state: TipoffState, event: CardsDrawn) -> TipoffState:
    hands = list(state.hands)
    hands[event.seat] = sorted([*hands[event.seat], *state.deck[: event.count]])
    return _next_round(replace(state, hands=hands, deck=state.deck[event.count :]))


def _next_round(state: TipoffState) -> TipoffState:
    over = any(not hand for hand in state.hands)
    return replace(state, phase="over" if over else "stake", round=state.round + 1, winner=None)


EVOLVE = Fold[TipoffState](
    "Tip-off",
    (Dealt, _dealt),
    {CardStaked: _card_staked, RoundWon: _round_won, CardsDrawn: _cards_drawn},
)


def _stake(state: TipoffState, seat: int, command: Stake, rng: Rng) -> list[TipoffEvent]:
    if command.card not in state.hands[seat]:
        raise IllegalMove(f"card {command.card} is not in seat {seat}'s hand")
    return [CardStaked(seat, command.card)]


def _draw(state: TipoffState, seat: int, command: Draw, rng: Rng) -> list[TipoffEvent]:
    if not 0 <= command.count <= min(MAX_DRAW, len(state.deck)):
        raise IllegalMove(f"draw 0 to {min(MAX_DRAW, len(state.deck))} cards")
    return [CardsDrawn(seat, command.count, state.deck[: command.count])]


def _step(state: TipoffState, seat: int) -> str | None:
    """The phase ``seat`` is awaited in, if it is."""
    if not 0 <= seat < state.seats:
        return None
    awaited = seat == state.winner if state.phase == "draw" else state.stakes[seat] is None
    return state.phase if awaited else None


COMMANDS = Commands[TipoffState, TipoffEvent](
    "Tip-off",
    {Stake: on("stake", _stake), Draw: on("draw", _draw)},
    over=lambda state: state.phase == "over",
    step=_step,
    wrong_step_message=lambda _seat, _command, now, wanted: f"it is time to {now}, not to {wanted}",
)


def _automatic(state: TipoffState) -> list[TipoffEvent]:
    """Once every stake is in, the round is won (or tied) by itself."""
    stakes = state.stakes
    if state.phase != "stake" or None in stakes:
        return []
    staked = [c for c in stakes if c is not None]
    best = max(staked)
    winner = staked.index(best) if staked.count(best) == 1 else None
    return [RoundWon(state.round, winner, sum(staked) if winner is not None else 0)]


def setup(options: TipoffOptions, seats: int, rng: Rng) -> list[TipoffEvent]:
    """Deal: every randomness is drawn here and recorded in the event (the deck order)."""
    size = options.hand_size
    deck = rng.shuffled(CARDS)
    hands = [sorted(deck[s * size : (s + 1) * size]) for s in range(seats)]
    rest = deck[seats * size :]
    return [Dealt(seats, list(hands), len(rest), rest)]


def pending(state: TipoffState) -> list[Awaiting]:
    if state.phase == "stake":
        step = f"r{state.round}.stake"
        return [
            Awaiting(seat, step, sealed=True)
            for seat in range(state.seats)
            if state.stakes[seat] is None
        ]
    if state.phase == "draw" and state.winner is not None:
        return [Awaiting(state.winner, f"r{state.round}.draw")]
    return []


def legal(state: TipoffState, seat: int) -> list[TipoffCommand]:
    step = _step(state, seat) if state.phase != "over" else None
    if step == "stake":
        return [Stake(card) for card in sorted(set(state.hands[seat]))]
    if step == "draw":
        return [Draw(count) for count in range(min(MAX_DRAW, len(state.deck)) + 1)]
    return []


def decide(state: TipoffState, seat: int, command: TipoffCommand, rng: Rng) -> list[TipoffEvent]:
    events = COMMANDS.decide(state, seat, command, rng)
    return settle(EVOLVE, _automatic, state, events)[0]


# ---- what a seat may see, the result, the bots ---------------------------------------------


def view(state: TipoffState, seat: int | None) -> TipoffView:
    return TipoffView(
        seat=seat,
        seats=state.seats,
        round=state.round,
        phase=state.phase,
        hand=list(state.hands[seat]) if seat is not None else None,
        hand_sizes=[len(hand) for hand in state.hands],
        deck_size=len(state.deck),
        points=list(state.points),
        out=list(state.out),
        winner=state.winner,
    )


def redact(event: TipoffEvent, seat: int | None) -> TipoffEvent:
    if isinstance(event, Dealt):
        hands = [hand if s == seat else None for s, hand in enumerate(event.hands)]
        return replace(event, hands=hands, deck=None)
    if isinstance(event, CardsDrawn) and event.seat != seat:
        return replace(event, cards=None)
    return event


def result(state: TipoffState | None) -> Outcome | None:
    if state is None or state.phase != "over":
        return None
    return ranking(state.points)


def greedy(view: TipoffView, legal: Sequence[TipoffCommand]) -> TipoffCommand:
    """The highest stake, the biggest draw."""
    return max(legal, key=lambda m: m.count if isinstance(m, Draw) else m.card)


def expert(
    view: TipoffView, seat: int, legal: Sequence[TipoffCommand], rng: Rng, budget: Budget
) -> TipoffCommand:
    """The lowest card that beats every card it has not seen, else its lowest card (and
    the biggest draw, as greedy)."""
    if isinstance(legal[0], Draw):
        return greedy(view, legal)
    unseen = list(CARDS)
    for card in [*(view.hand or []), *view.out]:
        unseen.remove(card)
    stakes = [m for m in legal if isinstance(m, Stake)]
    beating = [m for m in stakes if m.card > max(unseen, default=0)]
    return min(beating or stakes, key=lambda m: m.card)


#: The kit dispatches by level (random: any legal move) to the two policies above.
BOTS = Bots[TipoffView, TipoffCommand](greedy=greedy, expert=expert)


# ---- the game: the uniform interface, assembled from the parts above ----------------------

GAME: Game[TipoffState, TipoffCommand, TipoffEvent, TipoffView] = Assembled(
    name="tipoff",
    title="Tip-off",
    min_seats=2,
    max_seats=4,
    options_type=TipoffOptions,
    command_types=COMMANDS.command_types,
    event_types=EVOLVE.event_types,
    view_type=TipoffView,
    state_type=TipoffState,
    published_rulebook=TipoffRules("Tip-off", __doc__ or "", 2, 4, list(CARDS), MAX_DRAW),
    published_house_rules=HOUSE_RULES,
    setup=setup,
    evolve=EVOLVE,
    pending=pending,
    legal=legal,
    decide=decide,
    view=view,
    redact=redact,
    result=result,
    bot_move=BOTS,
)
