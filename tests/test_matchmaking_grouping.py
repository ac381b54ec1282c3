"""The matcher's grouping (pure): which waiting tickets make a table now."""

from __future__ import annotations

import random

import pytest

from service.matchmaking.grouping import Group, _group_for, close_enough, plan
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


def _every_candidate_plan(tickets: list[Ticket], now: int) -> list[Group]:
    """The plan as the matcher made it before the rating ladder: each anchor sorts every
    other untaken ticket of its pool (quadratic; the reference for the ladder's walk)."""
    pools: dict[str, list[Ticket]] = {}
    for t in sorted(tickets, key=lambda t: (t.spec.created_ms, t.id)):
        if t.status_at(now) == "waiting":
            pools.setdefault(t.spec.pool, []).append(t)
    groups: list[Group] = []
    for pool in pools.values():
        taken: set[str] = set()
        for anchor in pool:
            if anchor.id in taken:
                continue
            candidates = sorted(
                (
                    t
                    for t in pool
                    if t.id not in taken and t is not anchor and close_enough(anchor, t, now)
                ),
                key=lambda t: (abs(t.spec.mu - anchor.spec.mu), t.spec.created_ms, t.id),
            )
            group = _group_for(anchor, candidates, now)
            if group is not None:
                groups.append(group)
                taken.update(t.id for t in group.tickets)
    return groups


@pytest.mark.parametrize("seed", range(40))
def test_the_ladder_plans_exactly_what_sorting_every_candidate_plans(seed: int) -> None:
    rng = random.Random(seed)
    mus = [25.0, 25.0, 26.5, 23.5, 20.0, 31.0]  # equal ratings (new players) are the usual case
    tickets = [
        _ticket(
            number,
            sorted(rng.sample([2, 3, 4, 5], rng.randint(1, 3))),
            bots_after_ms=rng.choice([None, 0, 500, 5_000, 60_000]),
            external_id=f"p{rng.randrange(25)}",
            created_ms=NOW - rng.choice([0, 1, 2_000, 9_000, 40_000]) + number % 3,
            mu=rng.choice(mus) if rng.random() < 0.6 else rng.uniform(10, 40),
            options={"variant": rng.choice(["base", "base", "stacked"])},
        )
        for number in range(rng.randint(2, 120))
    ]
    tables = [([t.id for t in g.tickets], g.seat_count, g.bots) for g in plan(tickets, NOW)]
    reference = _every_candidate_plan(tickets, NOW)
    assert tables == [([t.id for t in g.tickets], g.seat_count, g.bots) for g in reference]
