"""Who acts, what they may do, and what their commands cause (docs/house-rules.md#bonnie_clyde).

A turn is: draw (Case File or FBI Files) → plays (at most one Ted Hinton, any melds and
layoffs, each with its follow-ups) → one discard, which ends the turn. The follow-ups of
a play are decisions of the same seat: searching the Files, taking or leaving a card
looked at under a location, moving the car after a layoff. Forced follow-ups (a meld's
car move, a layoff's at the edge of the board, capturing a fugitive at the car) are
applied in the same batch of events, with no decision.
"""

from __future__ import annotations

from collections import Counter

from domain.bonnie_clyde.cards import (
    EVIDENCE,
    FIRST_LOCATION,
    FUGITIVES,
    LAST_LOCATION,
    LAYOFF_MINIMUM,
    LOCATIONS,
    MELD_MINIMUM,
    TED_HINTON,
    TED_HINTON_DRAW,
    Card,
    card_order,
)
from domain.bonnie_clyde.commands import (
    BonnieClydeCommand,
    Discard,
    DrawFromCaseFile,
    DrawFromFiles,
    LayOff,
    LeaveHiddenCard,
    Meld,
    MoveCar,
    TakeFromFiles,
    TakeHiddenCard,
    TedHintonDrawTwo,
    TedHintonLook,
    TedHintonSearchFiles,
)
from domain.bonnie_clyde.events import (
    BonnieClydeEvent,
    CardDiscarded,
    CardDrawn,
    CardTakenFromFiles,
    CarMoved,
    FugitiveCaptured,
    GameEnded,
    HiddenCardLeft,
    HiddenCardSeen,
    HiddenCardTaken,
    LaidOff,
    MeldPlayed,
    TedHintonFiled,
    TedHintonPlayed,
)
from domain.bonnie_clyde.evolve import evolve
from domain.bonnie_clyde.scoring import score_hand, sole_leader_at_target
from domain.bonnie_clyde.setup import deal_hand
from domain.bonnie_clyde.state import BonnieClydeState, phase, step_id
from domain.engine import Awaiting
from domain.errors import IllegalMove
from domain.kit import Commands, on
from domain.rng import Rng

# ---- who acts ---------------------------------------------------------------------------


def pending(state: BonnieClydeState) -> list[Awaiting]:
    if state.over:
        return []
    return [Awaiting(seat=state.turn_seat, step=step_id(state))]


# ---- what a seat may do -----------------------------------------------------------------


def legal(state: BonnieClydeState, seat: int) -> list[BonnieClydeCommand]:
    if state.over or seat != state.turn_seat:
        return []
    current = phase(state)
    if current == "draw":
        moves: list[BonnieClydeCommand] = [DrawFromCaseFile()]
        if state.files:
            moves.append(DrawFromFiles())
        return moves
    if current == "search_files":
        return [TakeFromFiles(card) for card in sorted(set(state.files), key=card_order)]
    if current == "look":
        # Even when the card must be left (a fugitive away from the car, or any Ted
        # Hinton look at one) the seat still decides: skipping the step would tell the
        # table that a fugitive lies there.
        card = _looked_at(state)
        if card in FUGITIVES:
            return [LeaveHiddenCard()]
        return [TakeHiddenCard(), LeaveHiddenCard()]
    if current == "move_car":
        return [MoveCar(d) for d in ("up", "down") if _on_board(state.car, d)]
    return _plays(state, seat)


def _plays(state: BonnieClydeState, seat: int) -> list[BonnieClydeCommand]:
    hand = state.hands[seat]
    counts = Counter(hand)
    # A play may never leave the hand empty before the discard, judged on what the play
    # leaves: a meld or layoff keeps at least one card
    # (docs/house-rules.md#bonnie_clyde-hand-never-empty).
    spare = len(hand) - 1
    moves: list[BonnieClydeCommand] = []
    if _may_play_ted_hinton(state, hand):
        # Decided: each choice needs something to act on (a Case File to draw from,
        # FBI Files to search, a card under the location looked at). A Ted Hinton that
        # is the last card may still draw or search, which put a card back in the hand;
        # not look, which may end with the card left where it lies.
        if state.case_file:
            moves.append(TedHintonDrawTwo())
        if state.files:
            moves.append(TedHintonSearchFiles())
        if _look_keeps_a_card(hand):
            moves += [TedHintonLook(loc) for loc in LOCATIONS if state.locations[loc - 1]]
    melded = _melded_locations(state)
    for loc in LOCATIONS:
        have = min(counts[EVIDENCE[loc]], spare)
        moves += [Meld(loc, n) for n in range(MELD_MINIMUM, have + 1)]
        if loc in melded:
            moves += [LayOff(loc, n) for n in range(LAYOFF_MINIMUM, have + 1)]
    moves += [Discard(card) for card in sorted(counts, key=card_order)]
    return moves


def _may_play_ted_hinton(state: BonnieClydeState, hand: list[Card]) -> bool:
    return not state.ted_played and TED_HINTON in hand  # at most one per turn (§3)


def _look_keeps_a_card(hand: list[Card]) -> bool:
    """A look may leave the card under the location, so the Ted Hinton played for it
    must not be the last card in hand (docs/house-rules.md#bonnie_clyde-hand-never-empty)."""
    return len(hand) >= 2


def _melded_locations(state: BonnieClydeState) -> set[int]:
    return {p.location for table in state.tables for p in table if p.kind == "meld"}


def _looked_at(state: BonnieClydeState) -> Card | None:
    assert state.pending_look is not None
    return state.locations[state.pending_look - 1]


def _on_board(car: int, direction: str) -> bool:
    return car < LAST_LOCATION if direction == "up" else car > FIRST_LOCATION


# ---- what commands cause ----------------------------------------------------------------


def decide(
    state: BonnieClydeState, seat: int, command: BonnieClydeCommand, rng: Rng
) -> list[BonnieClydeEvent]:
    """The events of ``command``, the automatic ones that follow included."""
    return COMMANDS.decide(state, seat, command, rng)


def apply(
    state: BonnieClydeState, seat: int, command: BonnieClydeCommand, rng: Rng
) -> tuple[list[BonnieClydeEvent], BonnieClydeState]:
    """``decide``'s events, and the state they lead to (bots simulate with it)."""
    events = decide(state, seat, command, rng)
    for event in events:
        state = evolve(state, event)
    return events, state


def _draw_from_case_file(
    state: BonnieClydeState, seat: int, command: DrawFromCaseFile, rng: Rng
) -> list[BonnieClydeEvent]:
    return [CardDrawn(seat=seat, source="case_file", card=state.case_file[-1])]


def _draw_from_files(
    state: BonnieClydeState, seat: int, command: DrawFromFiles, rng: Rng
) -> list[BonnieClydeEvent]:
    if not state.files:
        raise IllegalMove("the FBI Files are empty")
    return [CardDrawn(seat=seat, source="files", card=state.files[-1])]


def _check_ted_hinton(state: BonnieClydeState, seat: int) -> None:
    hand = state.hands[seat]
    if state.ted_played:
        raise IllegalMove("only one Ted Hinton may be played per turn")
    if TED_HINTON not in hand:
        raise IllegalMove("no Ted Hinton in hand")


def _ted_draw_two(
    state: BonnieClydeState, seat: int, command: TedHintonDrawTwo, rng: Rng
) -> list[BonnieClydeEvent]:
    _check_ted_hinton(state, seat)
    if not state.case_file:
        raise IllegalMove("the Case File is empty")
    # Fewer than two left: draw what is there; emptying the Case File ends the hand
    # after this turn (§3).
    drawn = state.case_file[::-1][:TED_HINTON_DRAW]
    return [
        TedHintonPlayed(seat=seat, action="draw_two"),
        *(CardDrawn(seat=seat, source="case_file", card=card) for card in drawn),
        TedHintonFiled(seat=seat),
    ]


def _ted_search(
    state: BonnieClydeState, seat: int, command: TedHintonSearchFiles, rng: Rng
) -> list[BonnieClydeEvent]:
    _check_ted_hinton(state, seat)
    if not state.files:
        raise IllegalMove("the FBI Files are empty")
    return [TedHintonPlayed(seat=seat, action="search_files")]


def _take_from_files(
    state: BonnieClydeState, seat: int, command: TakeFromFiles, rng: Rng
) -> list[BonnieClydeEvent]:
    if command.card not in state.files:
        raise IllegalMove("no such card in the FBI Files")
    return [CardTakenFromFiles(seat=seat, card=command.card), TedHintonFiled(seat=seat)]


def _ted_look(
    state: BonnieClydeState, seat: int, command: TedHintonLook, rng: Rng
) -> list[BonnieClydeEvent]:
    _check_ted_hinton(state, seat)
    if not _look_keeps_a_card(state.hands[seat]):
        raise IllegalMove(
            "a look may leave the card where it lies, which would leave the hand empty "
            "before the discard"
        )
    card = _card_under(state, command.location)
    return [
        TedHintonPlayed(seat=seat, action="look", location=command.location),
        HiddenCardSeen(seat=seat, location=command.location, card=card),
    ]


def _card_under(state: BonnieClydeState, location: int) -> Card:
    if location not in LOCATIONS:
        raise IllegalMove(f"no location {location}")
    card = state.locations[location - 1]
    if card is None:
        raise IllegalMove(f"no card is left under location {location}")
    return card


def _take_hidden(
    state: BonnieClydeState, seat: int, command: TakeHiddenCard, rng: Rng
) -> list[BonnieClydeEvent]:
    location = state.pending_look
    assert location is not None
    card = _looked_at(state)
    assert card is not None
    # At the car's location a fugitive is captured at once (see `_after_play`), so a
    # fugitive still waiting here is one that must be left (§3).
    if card in FUGITIVES:
        raise IllegalMove("Bonnie and Clyde must be left where they are")
    taken = HiddenCardTaken(seat=seat, location=location, card=card)
    return [taken, *_after_look(evolve(state, taken), seat)]


def _leave_hidden(
    state: BonnieClydeState, seat: int, command: LeaveHiddenCard, rng: Rng
) -> list[BonnieClydeEvent]:
    location = state.pending_look
    assert location is not None
    left = HiddenCardLeft(seat=seat, location=location)
    return [left, *_after_look(evolve(state, left), seat)]


def _after_look(state: BonnieClydeState, seat: int) -> list[BonnieClydeEvent]:
    if state.ted_in_play:
        return [TedHintonFiled(seat=seat)]
    return _forced_car_move(state, seat)


def _meld(state: BonnieClydeState, seat: int, command: Meld, rng: Rng) -> list[BonnieClydeEvent]:
    _check_evidence(state, seat, command.location, command.count, MELD_MINIMUM)
    played = MeldPlayed(
        seat=seat,
        location=command.location,
        count=command.count,
        sideways=state.car == command.location,
    )
    return [played, *_after_play(evolve(state, played), seat, command.location)]


def _lay_off(
    state: BonnieClydeState, seat: int, command: LayOff, rng: Rng
) -> list[BonnieClydeEvent]:
    _check_evidence(state, seat, command.location, command.count, LAYOFF_MINIMUM)
    if command.location not in _melded_locations(state):
        raise IllegalMove("a layoff needs a meld of that location in front of some player")
    played = LaidOff(
        seat=seat,
        location=command.location,
        count=command.count,
        sideways=state.car == command.location,
    )
    return [played, *_after_play(evolve(state, played), seat, command.location)]


def _check_evidence(
    state: BonnieClydeState, seat: int, location: int, count: int, minimum: int
) -> None:
    if location not in LOCATIONS:
        raise IllegalMove(f"no location {location}")
    if count < minimum:
        raise IllegalMove(f"needs at least {minimum} evidence cards")
    hand = state.hands[seat]
    if hand.count(EVIDENCE[location]) < count:
        raise IllegalMove(f"not {count} evidence cards of location {location} in hand")
    if count >= len(hand):
        raise IllegalMove("a play may not leave the hand empty before the discard")


def _after_play(state: BonnieClydeState, seat: int, location: int) -> list[BonnieClydeEvent]:
    """The look under the location, then the car move (§3, "Every meld or layoff")."""
    card = state.locations[location - 1]
    if card is None:
        return _forced_car_move(state, seat)
    if card in FUGITIVES and state.car == location:
        captured = FugitiveCaptured(seat=seat, location=location, card=card)
        return [captured, *_forced_car_move(evolve(state, captured), seat)]
    return [HiddenCardSeen(seat=seat, location=location, card=card)]


def _forced_car_move(state: BonnieClydeState, seat: int) -> list[BonnieClydeEvent]:
    """A meld moves the car up 1, staying on the last location; a layoff lets the player
    choose, except at an edge, where the only on-board direction is taken (decided)."""
    car = state.car
    if state.pending_car == "meld":
        return [CarMoved(seat=seat, from_location=car, to_location=min(car + 1, LAST_LOCATION))]
    if state.pending_car == "layoff":
        if car == FIRST_LOCATION:
            return [CarMoved(seat=seat, from_location=car, to_location=car + 1)]
        if car == LAST_LOCATION:
            return [CarMoved(seat=seat, from_location=car, to_location=car - 1)]
    return []  # a layoff between the edges: the player chooses (`MoveCar`)


def _move_car(
    state: BonnieClydeState, seat: int, command: MoveCar, rng: Rng
) -> list[BonnieClydeEvent]:
    if not _on_board(state.car, command.direction):
        raise IllegalMove("the car may not leave the board")
    step = 1 if command.direction == "up" else -1
    return [CarMoved(seat=seat, from_location=state.car, to_location=state.car + step)]


def _discard(
    state: BonnieClydeState, seat: int, command: Discard, rng: Rng
) -> list[BonnieClydeEvent]:
    if command.card not in state.hands[seat]:
        raise IllegalMove("that card is not in hand")
    return [CardDiscarded(seat=seat, card=command.card), *_after_discard(state, seat, rng)]


def _after_discard(state: BonnieClydeState, seat: int, rng: Rng) -> list[BonnieClydeEvent]:
    """End of the hand, and of the game or the next deal. Discarding the last card goes
    out even when the Case File ran out on the same turn, so the car bonus applies
    (docs/house-rules.md#bonnie_clyde-car-bonus)."""
    went_out = len(state.hands[seat]) == 1
    if not went_out and state.case_file:
        return []
    # The discard changes nothing that scores (tables, fugitives, car).
    scored = score_hand(state, "went_out" if went_out else "case_file_ran_out", seat)
    winner = sole_leader_at_target(scored.totals, state.target)
    if winner is not None:
        return [scored, GameEnded(winner=winner, totals=scored.totals)]
    dealer = (state.dealer + 1) % state.seats
    return [scored, deal_hand(state.seats, state.hand_number + 1, dealer, rng)]


COMMANDS = Commands[BonnieClydeState, BonnieClydeEvent](
    "Bonnie and Clyde",
    {
        DrawFromCaseFile: on("draw", _draw_from_case_file),
        DrawFromFiles: on("draw", _draw_from_files),
        TedHintonDrawTwo: on("play", _ted_draw_two),
        TedHintonSearchFiles: on("play", _ted_search),
        TedHintonLook: on("play", _ted_look),
        TakeFromFiles: on("search_files", _take_from_files),
        TakeHiddenCard: on("look", _take_hidden),
        LeaveHiddenCard: on("look", _leave_hidden),
        Meld: on("play", _meld),
        LayOff: on("play", _lay_off),
        MoveCar: on("move_car", _move_car),
        Discard: on("play", _discard),
    },
    over=lambda state: state.over,
    step=lambda state, seat: phase(state) if seat == state.turn_seat else None,
    not_awaited_message=lambda state, _seat: f"it is seat {state.turn_seat}'s turn",
)
