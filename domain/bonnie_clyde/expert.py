"""The ``expert`` bot: determinized rollouts.

For each decision with a real choice, it samples complete tables consistent with its own
view (the other hands, the Case File order, the FBI Files below the top card and the
unseen cards under the locations; Bonnie and Clyde, until captured, are always under a
location, so they go to the unseen occupied locations), plays each candidate move in
each sample, lets every player continue with the greedy policy to the end of the hand,
and picks the move with the best average margin over the strongest opponent. Every
candidate meets the same samples, so their comparison is not blurred by luck. The
budget keeps a move around one second on one core in the worst case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from domain.bonnie_clyde.bots import (
    Perspective,
    card_value,
    greedy_move,
    perspective_of_state,
    perspective_of_view,
)
from domain.bonnie_clyde.cards import (
    EVIDENCE,
    FUGITIVES,
    TED_HINTON,
    Card,
    card_order,
    full_deck,
)
from domain.bonnie_clyde.commands import Command, Discard, LayOff, Meld, TedHintonLook
from domain.bonnie_clyde.events import HandEnding
from domain.bonnie_clyde.evolve import evolve
from domain.bonnie_clyde.rules import decide, legal
from domain.bonnie_clyde.scoring import score_hand
from domain.bonnie_clyde.state import State
from domain.bonnie_clyde.views import BonnieClydeView
from domain.budget import TUNED, Budget
from domain.rng import Rng

SIMULATIONS_PER_MOVE = 160
MAX_CANDIDATES = 6
MIN_SAMPLES = 4
# An alternative must beat the greedy choice by this average margin (points) to be
# preferred: with few samples, small differences are mostly noise.
DEVIATION_MARGIN = 1.0
MAX_SIMULATED_DECISIONS = 1500


def expert_move(
    view: BonnieClydeView,
    legal_moves: Sequence[Command],
    rng: Rng,
    budget: Budget = TUNED,
) -> Command:
    p = perspective_of_view(view)
    greedy = greedy_move(p, legal_moves)
    if len(legal_moves) == 1 or view.seat is None:
        return greedy
    candidates = _candidates(p, greedy, legal_moves)
    if len(candidates) == 1:
        return greedy
    margins = [0.0] * len(candidates)
    done = 0
    for i in budget.rounds(SIMULATIONS_PER_MOVE // len(candidates), MIN_SAMPLES):
        world = determinize(view, rng.fork(f"world{i}"))
        for j, move in enumerate(candidates):
            margins[j] += _simulate(world, view.seat, move, rng.fork(f"play{i}.{j}"))
        done = i + 1
    best = max(range(len(candidates)), key=lambda j: (margins[j], -j))
    if margins[best] - margins[0] < DEVIATION_MARGIN * done:
        return greedy
    return candidates[best]


def _candidates(p: Perspective, greedy: Command, legal_moves: Sequence[Command]) -> list[Command]:
    """The greedy choice first, then the most plausible alternatives: every meld and
    layoff at its largest size and one card at a time, each Ted Hinton choice (looks
    only where this seat has not looked), and the discards the greedy player values
    least."""
    largest: dict[tuple[bool, int], Meld | LayOff] = {}
    others: list[Command] = []
    discards: list[Discard] = []
    for move in legal_moves:
        if move == greedy:
            continue
        if isinstance(move, Meld | LayOff):
            key = (isinstance(move, Meld), move.location)
            if key not in largest or move.count > largest[key].count:
                largest[key] = move
            if isinstance(move, LayOff) and move.count == 1:
                others.append(move)
        elif isinstance(move, Discard):
            discards.append(move)
        elif isinstance(move, TedHintonLook):
            if p.seen[move.location - 1] is None:
                others.append(move)
        else:
            others.append(move)
    discards.sort(key=lambda m: (card_value(p, m.card), card_order(m.card)))
    ranked = [*largest.values(), *others, *discards]
    unique = list(dict.fromkeys(ranked))
    return [greedy, *unique[: MAX_CANDIDATES - 1]]


def determinize(view: BonnieClydeView, rng: Rng) -> State:
    """A full state that agrees with everything ``view`` shows, hidden cards sampled.

    The unseen cards are shuffled once into a pool, the blind locations once; then the
    blind locations, the other hands, the Files below the top and the Case File are dealt
    from the pool in that order (a seeded expert samples the same worlds)."""
    assert view.seat is not None
    me = view.seat
    unknown = Counter(full_deck())
    unknown.subtract(_known_cards(view))
    fugitives_left = [card for card in FUGITIVES if unknown[card] > 0]
    pool = rng.shuffled(
        [
            card
            for card in sorted(unknown, key=card_order)
            if card not in FUGITIVES
            for _ in range(unknown[card])
        ]
    )
    locations = _locations(view, fugitives_left, pool, rng)
    hands = [
        list(view.hand or []) if table.seat == me else [pool.pop() for _ in range(table.hand_size)]
        for table in view.tables
    ]
    files = _files(view, pool)
    case_file = pool[: view.case_file_size]
    assert len(case_file) == view.case_file_size, "the view does not add up to the deck"
    memory: list[list[Card | None]] = [[None] * len(view.locations) for _ in view.tables]
    memory[me] = [loc.seen_card for loc in view.locations]
    return State(
        seats=view.seats,
        target=view.target,
        totals=list(view.totals),
        hand_number=view.hand_number,
        dealer=view.dealer,
        turn_seat=view.turn_seat,
        turn=view.turn,
        drawn=view.phase != "draw",
        ted_played=view.ted_hinton_played_this_turn,
        ted_in_play=view.ted_hinton_in_play,
        searching=view.phase == "search_files",
        pending_look=view.look_location,
        pending_car=view.pending_car_move,
        car=view.car,
        case_file=case_file,
        files=files,
        locations=locations,
        hands=hands,
        tables=[list(table.sets) for table in view.tables],
        fugitives=[list(table.fugitives) for table in view.tables],
        seen=memory,
        last_hand=view.last_hand,
    )


def _known_cards(view: BonnieClydeView) -> list[Card]:
    """Every card the view shows: the hand, the tables, a Ted Hinton in play, the Files
    (all of them while searching, else the top) and the cards seen under locations."""
    known: list[Card] = list(view.hand or [])
    for table in view.tables:
        known += table.fugitives
        known += [EVIDENCE[p.location] for p in table.sets for _ in range(p.count)]
    if view.ted_hinton_in_play:
        known.append(TED_HINTON)
    if view.files_cards is not None:
        known += view.files_cards
    elif view.files_top is not None:
        known.append(view.files_top)
    known += [loc.seen_card for loc in view.locations if loc.seen_card is not None]
    return known


def _locations(
    view: BonnieClydeView, fugitives_left: list[Card], pool: list[Card], rng: Rng
) -> list[Card | None]:
    """The cards under the locations: the seen ones as seen; the blind ones, in a random
    order, get the fugitives not accounted for first, then cards dealt from ``pool``."""
    blind_spots = rng.shuffled(
        [loc.location for loc in view.locations if loc.has_hidden_card and loc.seen_card is None]
    )
    locations: list[Card | None] = [
        loc.seen_card if loc.has_hidden_card else None for loc in view.locations
    ]
    for index, location in enumerate(blind_spots):
        locations[location - 1] = (
            fugitives_left[index] if index < len(fugitives_left) else pool.pop()
        )
    return locations


def _files(view: BonnieClydeView, pool: list[Card]) -> list[Card]:
    """The FBI Files: as shown while searching, else the cards below the top from ``pool``."""
    if view.files_cards is not None:
        return list(view.files_cards)
    below = [pool.pop() for _ in range(view.files_size - 1)] if view.files_size else []
    return [*below, *([view.files_top] if view.files_top is not None else [])]


def _simulate(world: State, me: int, move: Command, rng: Rng) -> float:
    """Play ``move`` then greedy play to the end of the hand; ``me``'s resulting margin."""
    state = world
    seat = me
    for _ in range(MAX_SIMULATED_DECISIONS):
        if isinstance(move, Discard) and (len(state.hands[seat]) == 1 or not state.case_file):
            ending: HandEnding = "went_out" if len(state.hands[seat]) == 1 else "case_file_ran_out"
            totals = score_hand(state, ending, seat).totals
            return float(totals[me] - max(t for s, t in enumerate(totals) if s != me))
        for event in decide(state, seat, move, rng):
            state = evolve(state, event)
        seat = state.turn_seat
        move = greedy_move(perspective_of_state(state, seat), legal(state, seat))
    return 0.0
