"""The game kit on a toy counter game: given a table of handlers, when events and commands
arrive, then the kit folds, refuses and settles the same way for every game."""

from __future__ import annotations

import msgspec
import pytest
from msgspec.structs import replace

from domain.errors import GameOver, IllegalMove, NotYourTurn, RedactedEvent, WrongPhase
from domain.kit import Commands, Fold, on, ranking, settle, unredacted
from domain.rng import Rng


class Started(msgspec.Struct, frozen=True, tag="toy.started", tag_field="type"):
    seats: int
    secret: int | None = None


class Added(msgspec.Struct, frozen=True, tag="toy.added", tag_field="type"):
    seat: int
    amount: int


class Rolled(msgspec.Struct, frozen=True, tag="toy.rolled", tag_field="type"):
    """Automatic: the turn passes each time the total becomes even."""


ToyEvent = Started | Added | Rolled


class Add(msgspec.Struct, frozen=True, tag="toy.add", tag_field="type"):
    amount: int


class Pass(msgspec.Struct, frozen=True, tag="toy.pass", tag_field="type"):
    pass


class Toy(msgspec.Struct, frozen=True):
    seats: int
    secret: int
    total: int = 0
    turn: int = 0
    rolled_at: int = 0
    phase: str = "add"


def _started(event: Started) -> Toy:
    return Toy(event.seats, unredacted(event.secret, "start"))


def _added(state: Toy, event: Added) -> Toy:
    return replace(state, total=state.total + event.amount)


def _rolled(state: Toy, event: Rolled) -> Toy:
    over = state.total >= 10
    turn = (state.turn + 1) % state.seats
    return replace(state, turn=turn, rolled_at=state.total, phase="over" if over else "add")


EVOLVE = Fold[Toy]("Toy", (Started, _started), {Added: _added, Rolled: _rolled})


def _add(state: Toy, seat: int, command: Add, rng: Rng) -> list[object]:
    if command.amount <= 0:
        raise IllegalMove("add a positive amount")
    return [Added(seat, command.amount)]


COMMANDS = Commands[Toy, object](
    "Toy",
    {Add: on("add", _add), Pass: on(("pass", "other"), lambda *_: [])},
    over=lambda state: state.phase == "over",
    step=lambda state, seat: state.phase if seat == state.turn else None,
)


def _automatic(state: Toy) -> list[ToyEvent]:
    even = state.total % 2 == 0 and state.total != state.rolled_at
    return [Rolled()] if state.phase == "add" and even else []


def test_the_fold_starts_with_the_opening_event_and_lists_the_event_types() -> None:
    state = EVOLVE.all(EVOLVE(None, Started(2, secret=7)), [Added(0, 3), Added(1, 4)])
    assert state == Toy(2, 7, total=7)
    assert EVOLVE.event_types == (Started, Added, Rolled)


def test_the_fold_refuses_a_stream_without_its_opening_and_an_event_of_another_game() -> None:
    with pytest.raises(ValueError, match=r"starts with toy\.started"):
        EVOLVE(None, Added(0, 1))
    with pytest.raises(ValueError, match="not an event of Toy"):
        EVOLVE(Toy(2, 0), Add(1))


def test_a_redacted_event_never_folds() -> None:
    with pytest.raises(RedactedEvent, match="redacted start"):
        EVOLVE(None, Started(2))
    assert issubclass(RedactedEvent, ValueError)


def test_commands_are_refused_in_one_order() -> None:
    rng = Rng(b"toy")
    over = Toy(2, 0, phase="over")
    with pytest.raises(GameOver):
        COMMANDS.decide(over, 1, Started(2), rng)  # finished comes first, whatever is sent
    with pytest.raises(NotYourTurn, match="seat 1 has nothing to do now"):
        COMMANDS.decide(Toy(2, 0), 1, Started(2), rng)
    with pytest.raises(IllegalMove, match="not a Toy command: Started"):
        COMMANDS.decide(Toy(2, 0), 0, Started(2), rng)
    with pytest.raises(WrongPhase, match="Pass needs the other step; now: add"):
        COMMANDS.decide(Toy(2, 0), 0, Pass(), rng)
    with pytest.raises(IllegalMove, match="positive"):
        COMMANDS.decide(Toy(2, 0), 0, Add(0), rng)
    assert COMMANDS.decide(Toy(2, 0), 0, Add(2), rng) == [Added(0, 2)]
    assert COMMANDS.command_types == (Add, Pass)


def test_settle_appends_the_automatic_events_until_a_seat_must_act() -> None:
    state = Toy(2, 0, total=1)
    added: list[ToyEvent] = [Added(0, 1)]
    events, after = settle(EVOLVE, _automatic, state, added)
    assert events == [Added(0, 1), Rolled()]
    assert after == Toy(2, 0, total=2, turn=1, rolled_at=2)
    added = [Added(0, 2)]
    assert settle(EVOLVE, _automatic, state, added) == (
        [Added(0, 2)],
        replace(state, total=3),
    )


def test_ranking_shares_places_and_breaks_ties_when_asked() -> None:
    outcome = ranking([5, 9, 9, 1])
    assert (outcome.places, outcome.winners, outcome.scores) == ([3, 1, 1, 4], [1, 2], [5, 9, 9, 1])
    broken = ranking([9, 9, 9], [(1, 0), (2, 0), (2, 0)])
    assert (broken.places, broken.winners) == ([3, 1, 1], [1, 2])
