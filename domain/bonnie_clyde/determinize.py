"""A full state consistent with one seat's view, for the expert's playouts.

Everything the view hides is drawn at random from what it could be: the other hands, the
Case File order, the FBI Files below the top card and the unseen cards under the
locations (Bonnie and Clyde, until captured, are always under a location, so they go to
the unseen occupied locations).
"""

from __future__ import annotations

from collections import Counter

from domain.bonnie_clyde.cards import EVIDENCE, FUGITIVES, TED_HINTON, Card, card_order, full_deck
from domain.bonnie_clyde.state import BonnieClydeState
from domain.bonnie_clyde.views import BonnieClydeView
from domain.rng import Rng


def determinize(view: BonnieClydeView, rng: Rng) -> BonnieClydeState:
    """A full state that agrees with everything ``view`` shows, hidden cards sampled.

    The unseen cards are shuffled once into a pool, the blind locations once; then the
    blind locations, the other hands, the Files below the top and the Case File are dealt
    from the pool in that order (a seeded expert samples the same worlds)."""
    me = view.seat
    if me is None:
        raise ValueError("determinize a seat's view")
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
    return BonnieClydeState(
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
