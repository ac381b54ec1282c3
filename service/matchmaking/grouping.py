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

import heapq
import math
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from domain.engine import BotLevel
from service.matchmaking.tickets import Ticket
from service.players.ratings import DISPLAY_SCALE

BASE_WINDOW = 100.0
WIDEN_PER_SECOND = 10.0
# An anchor's walk examines at most this many tickets, closest first: a pass costs at most
# SCAN_LIMIT times the pool's tickets, whatever the pool. Only a pool whose closest
# SCAN_LIMIT tickets cannot seat the anchor (all outside its rating window, or of seat
# counts it does not take) plans differently from examining them all.
SCAN_LIMIT = 256


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


class _Enough:
    """Whether the candidates found so far (closest first) decide the anchor's group: for
    every seat count it accepts, enough distinct other players accept it (and take bots,
    when bots are due). Then no later candidate could change the choice."""

    def __init__(self, anchor: Ticket, bots: bool) -> None:
        self.anchor = anchor
        self.bots = bots
        self.people: dict[int, set[str]] = {count: set() for count in anchor.spec.seats}
        self.willing: dict[int, set[str]] = {count: set() for count in anchor.spec.seats}
        self.short = sum(2 * (count - 1) if bots else count - 1 for count in self.people)

    def add(self, ticket: Ticket) -> bool:
        """Count ``ticket`` in; True once enough are found."""
        player = ticket.spec.external_id
        if player == self.anchor.spec.external_id:
            return self.short <= 0
        for count in ticket.spec.seats:
            people = self.people.get(count)
            if people is None:
                continue
            if len(people) < count - 1 and player not in people:
                people.add(player)
                self.short -= 1
            willing = self.willing[count]
            takes_bots = ticket.spec.bots_after_ms is not None
            if self.bots and takes_bots and len(willing) < count - 1 and player not in willing:
                willing.add(player)
                self.short -= 1
        return self.short <= 0


def _group_for(anchor: Ticket, candidates: Sequence[Ticket], now_ms: int) -> Group | None:
    """The anchor's group from its ``candidates``, closest first (or enough of them)."""
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


def _oldest_first(ticket: Ticket) -> tuple[int, str]:
    return ticket.spec.created_ms, ticket.id


class _Ladder:
    """One pool's tickets by rating: a run per distinct mu, ascending, each run oldest
    first. Taken tickets leave their run, so a walk never meets them again."""

    def __init__(self, pool: Sequence[Ticket]) -> None:
        runs: dict[float, list[Ticket]] = defaultdict(list)
        for ticket in pool:  # oldest first already
            runs[ticket.spec.mu].append(ticket)
        self.mus = sorted(runs)
        self.runs = [runs[mu] for mu in self.mus]
        self.run_of = {t.id: i for i, run in enumerate(self.runs) for t in run}

    def take(self, ticket: Ticket) -> None:
        self.runs[self.run_of[ticket.id]].remove(ticket)

    def nearest(self, anchor: Ticket, reach: float) -> Iterator[Ticket]:
        """The other tickets within ``reach`` points of the anchor, in the order of the
        candidates: closest in mu first, then oldest (two runs at one distance, one on
        each side, merged)."""
        at, mu = self.run_of[anchor.id], anchor.spec.mu
        yield from (t for t in self.runs[at] if t is not anchor)
        left, right = at - 1, at + 1
        while True:
            below = mu - self.mus[left] if left >= 0 else math.inf
            above = self.mus[right] - mu if right < len(self.mus) else math.inf
            if min(below, above) * DISPLAY_SCALE > reach:
                return
            if below == above:
                yield from heapq.merge(self.runs[left], self.runs[right], key=_oldest_first)
                left, right = left - 1, right + 1
            elif below < above:
                yield from self.runs[left]
                left -= 1
            else:
                yield from self.runs[right]
                right += 1


def _plan_pool(pool: Sequence[Ticket], now_ms: int) -> list[Group]:
    """The groups of one pool (its waiting tickets, oldest first)."""
    ladder = _Ladder(pool)
    reach = window(pool[0], now_ms)  # the oldest ticket's window is the widest
    groups: list[Group] = []
    taken: set[str] = set()
    for anchor in pool:
        if anchor.id in taken:
            continue
        enough = _Enough(anchor, bots_due(anchor, now_ms))
        found: list[Ticket] = []
        for scanned, ticket in enumerate(ladder.nearest(anchor, reach), start=1):
            if close_enough(anchor, ticket, now_ms):
                found.append(ticket)
                if enough.add(ticket):
                    break
            if scanned >= SCAN_LIMIT:
                break
        group = _group_for(anchor, found, now_ms)
        if group is not None:
            groups.append(group)
            for ticket in group.tickets:
                taken.add(ticket.id)
                ladder.take(ticket)
    return groups


def plan(tickets: Sequence[Ticket], now_ms: int) -> list[Group]:
    """The groups to make now from waiting ``tickets`` (any pools; expired ones left out)."""
    pools: dict[str, list[Ticket]] = defaultdict(list)
    for ticket in sorted(tickets, key=_oldest_first):
        if ticket.status_at(now_ms) == "waiting":
            pools[ticket.spec.pool].append(ticket)
    return [group for pool in pools.values() for group in _plan_pool(pool, now_ms)]
