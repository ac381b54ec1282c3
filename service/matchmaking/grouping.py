"""Which waiting tickets make a game together (pure: tickets and a time in, groups out).

Tickets of one pool (same API key, game kind and options) are taken oldest first. Each
ticket, in turn, anchors a group:

- Candidates: the other waiting tickets of the pool of other players whose rating is within
  the window of the anchor or of the candidate (the longer-waiting one widens it): the
  window is `BASE_WINDOW` rating points at first and grows by `WIDEN_PER_SECOND` for every
  second a ticket has waited (ratings compared by mu, on the shown scale: 24 points a unit
  of mu). Closest in rating first, then oldest.
- A full table of people: the largest seat count the anchor accepts for which enough
  candidates accept it too; its seats go to the anchor and the closest candidates.
- Otherwise, once the anchor has waited its ``bots_after`` time: a table for the anchor and
  as many candidates as there are that accept the seat count and bots at all, the rest of
  the seats bots of the anchor's level (the seat count that seats the most people, the
  smallest of those).
- Otherwise the anchor keeps waiting.

No player sits twice at one table, and a ticket joins at most one group per pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from domain.engine import BotLevel
from service.matchmaking.tickets import Ticket
from service.players.ratings import DISPLAY_SCALE

BASE_WINDOW = 100.0
WIDEN_PER_SECOND = 10.0


@dataclass(frozen=True)
class Group:
    """One table to make: its tickets, its seat count and the bots that complete it."""

    tickets: tuple[Ticket, ...]
    seat_count: int
    bot_level: BotLevel

    @property
    def bots(self) -> int:
        return self.seat_count - len(self.tickets)


def window(ticket: Ticket, now_ms: int) -> float:
    """The rating window of a ticket (points of the shown scale) after its wait so far."""
    waited = max(0, now_ms - ticket.spec.created_ms) / 1000
    return BASE_WINDOW + WIDEN_PER_SECOND * waited


def close_enough(a: Ticket, b: Ticket, now_ms: int) -> bool:
    gap = abs(a.spec.mu - b.spec.mu) * DISPLAY_SCALE
    return gap <= max(window(a, now_ms), window(b, now_ms))


def bots_due(ticket: Ticket, now_ms: int) -> bool:
    after = ticket.spec.bots_after_ms
    return after is not None and now_ms - ticket.spec.created_ms >= after


def _distinct(anchor: Ticket, candidates: Sequence[Ticket], wanted: int) -> list[Ticket]:
    """Up to ``wanted`` candidates, in order, of players not yet at the table."""
    seated = {anchor.spec.external_id}
    out: list[Ticket] = []
    for ticket in candidates:
        if len(out) == wanted:
            break
        if ticket.spec.external_id not in seated:
            seated.add(ticket.spec.external_id)
            out.append(ticket)
    return out


def _group_for(anchor: Ticket, others: Sequence[Ticket], now_ms: int) -> Group | None:
    candidates = sorted(
        (t for t in others if close_enough(anchor, t, now_ms)),
        key=lambda t: (abs(t.spec.mu - anchor.spec.mu), t.spec.created_ms, t.id),
    )
    for count in sorted(anchor.spec.seats, reverse=True):
        fits = _distinct(anchor, [t for t in candidates if count in t.spec.seats], count - 1)
        if len(fits) == count - 1:
            return Group((anchor, *fits), count, anchor.spec.bot_level)
    if not bots_due(anchor, now_ms):
        return None
    best: tuple[int, int, list[Ticket]] | None = None
    for count in sorted(anchor.spec.seats):
        willing = [
            t for t in candidates if count in t.spec.seats and t.spec.bots_after_ms is not None
        ]
        fits = _distinct(anchor, willing, count - 1)
        if best is None or len(fits) > len(best[2]):
            best = (count, len(fits), fits)
    assert best is not None  # a ticket accepts at least one seat count
    count, _, fits = best
    return Group((anchor, *fits), count, anchor.spec.bot_level)


def plan(tickets: Sequence[Ticket], now_ms: int) -> list[Group]:
    """The groups to make now from waiting ``tickets`` (any pools; expired ones left out)."""
    pools: dict[str, list[Ticket]] = defaultdict(list)
    for ticket in sorted(tickets, key=lambda t: (t.spec.created_ms, t.id)):
        if ticket.status_at(now_ms) == "waiting":
            pools[ticket.spec.pool].append(ticket)
    groups: list[Group] = []
    for pool in pools.values():
        taken: set[str] = set()
        for anchor in pool:
            if anchor.id in taken:
                continue
            others = [t for t in pool if t.id not in taken and t.id != anchor.id]
            group = _group_for(anchor, others, now_ms)
            if group is not None:
                groups.append(group)
                taken.update(t.id for t in group.tickets)
    return groups
