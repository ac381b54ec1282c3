"""The matcher's grouping (pure): which waiting tickets make a table now."""

from __future__ import annotations

from service.matchmaking.grouping import plan
from service.matchmaking.tickets import Ticket, TicketSpec

NOW = 1_000_000


def _ticket(
    number: int, seats: list[int], bots_after_ms: int | None = None, **spec: object
) -> Ticket:
    fields: dict[str, object] = {
        "game": "fbi",
        "options": {"variant": "base"},
        "seats": seats,
        "external_id": f"p{number}",
        "name": None,
        "bots_after_ms": bots_after_ms,
        "bot_level": "greedy",
        "created_ms": NOW - 1000 + number,
        "expires_ms": NOW + 60_000,
        "mu": 25.0,
        **spec,
    }
    return Ticket(f"t{number:02d}", "k", TicketSpec(**fields), "waiting", "", "")  # type: ignore[arg-type]


def _tables(tickets: list[Ticket]) -> list[tuple[list[str], int]]:
    return [([t.id for t in g.tickets], g.seat_count) for g in plan(tickets, NOW)]


def test_the_oldest_ticket_gets_the_largest_full_table_it_accepts() -> None:
    tickets = [_ticket(0, [2, 3, 4]), _ticket(1, [3, 4]), _ticket(2, [2, 3]), _ticket(3, [4])]
    # 4 seats: t00, t01, t03 accept it, one short; 3 seats: t00, t01, t02.
    assert _tables(tickets) == [(["t00", "t01", "t02"], 3)]


def test_bots_fill_once_the_oldest_has_waited_and_only_with_tickets_that_take_bots() -> None:
    tickets = [
        _ticket(0, [3, 4], bots_after_ms=500),  # waited 1 s: bots are due
        _ticket(1, [3, 4]),  # people only: not at a table with bots
        _ticket(2, [4], bots_after_ms=60_000),  # takes bots (later), and 4 seats only
    ]
    groups = plan(tickets, NOW)
    assert [([t.id for t in g.tickets], g.seat_count, g.bots) for g in groups] == [
        (["t00", "t02"], 4, 2)
    ]


def test_nobody_sits_twice_and_pools_and_ratings_keep_apart() -> None:
    tickets = [
        _ticket(0, [2]),
        _ticket(1, [2], external_id="p0"),  # the same player
        _ticket(2, [2], options={"variant": "stacked"}),  # another pool
        _ticket(3, [2], mu=45.0),  # 480 points away: outside a fresh window (110)
    ]
    assert _tables(tickets) == []
    assert _tables([*tickets, _ticket(4, [2], mu=26.0)]) == [(["t00", "t04"], 2)]
