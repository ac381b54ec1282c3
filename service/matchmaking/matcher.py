"""The matcher: turns waiting tickets into games, in a worker of its own.

`stakeout run` runs it in a process of its own (`stakeout worker --queues matchmaking`), so
its passes never take the interpreter from the bot turns of a game worker; a worker serving
``matchmaking`` beside the bots (`STAKEOUT_WORKER_QUEUES`'s default) runs it on a thread.
Any number may run, but one at a time works: each pass starts by taking or renewing a lease
(``matchmaking:lease``, `LEASE_MS`), renewed during the pass once a third of it has passed
(a pass whose lease another matcher took stops), and a matcher without it waits. The scripts
of `service.matchmaking.tickets` keep tickets right even when two matchers overlap (a
stalled lease holder waking up): a ticket is seated once, all of a group's tickets or none.

One pass: per API key with tickets, finish the matches a dead matcher left half made
(seated, game not reported made: the game is created, or found, with the recorded seats
and token hashes), read its waiting tickets (only those not read by an earlier pass: a
ticket's spec never changes), expire overdue ones and plan its groups
(service/matchmaking/grouping.py, near-linear). Then the groups are made one of each key
in turn (no key's backlog delays another's game by more than one game each): a place in
the key's quota of active games first (none left: the key's tickets wait, and the key is
left out of the passes of the next `HELD_BACK_SECONDS`), then the tickets are seated in
one script, the game is created (service/lobby/game_maker.py) and the tickets are marked
matched; then each ticket's ``match.found`` goes to the key's account feed and webhooks
(its ticket id, game and seat; never a token).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import deque
from dataclasses import dataclass, field

import anyio.to_thread
import redis.exceptions

from domain.match import SeatSpec
from service.lobby.game_maker import GameMaker
from service.matchmaking.grouping import Group, plan
from service.matchmaking.tickets import DEFAULT_CLOCK, MatchRecord, MatchTickets, Ticket
from service.notify.account_feed import AccountFeed
from service.notify.delivery_queue import DeliveryQueue, deliveries_for
from service.notify.webhooks import Notification, NotifiedSeat, WebhookStore
from service.play.errors import ActiveGameLimit, GameExists
from service.play.game_service import NewGame

log = logging.getLogger("stakeout.matchmaking")

LEASE_MS = 5_000
PASS_EVERY_SECONDS = 0.25
IDLE_EVERY_SECONDS = 1.0
STALE_MATCH_MS = 15_000  # a match seated this long ago and not made: its matcher died
HELD_BACK_SECONDS = 1.0  # a key at its quota is planned again after this long
MAX_POOL = 2_000  # tickets of one API key read per pass (its oldest; its cap is lower)
OWNERS_FOR_MS = 2 * 3600 * 1000  # an API key's last ticket is at most this old (expiry cap)


@dataclass
class Passed:
    """What one pass did."""

    games: int = 0
    seated: int = 0
    expired: int = 0
    recovered: int = 0
    lost_races: int = 0  # groups not seated: a ticket was cancelled (or taken) meanwhile
    held_back: list[str] = field(default_factory=list)  # API keys at their quota


@dataclass(frozen=True)
class MatchNotifier:
    """Where ``match.found`` goes: the key's account feed and its webhooks (their deliveries'
    queue, as a change's follow-up queues them: each once however often it is asked)."""

    webhooks: WebhookStore
    feed: AccountFeed
    deliveries: DeliveryQueue

    async def found(self, record: MatchRecord, game_id: str, at_ms: int) -> None:
        notes = match_found(record, game_id, at_ms)
        if await self.feed.active(record.owner):
            await self.feed.record(record.owner, notes)
        queued = deliveries_for(notes, await self.webhooks.of(record.owner))
        if queued:
            await anyio.to_thread.run_sync(self.deliveries.enqueue, queued)


def match_found(record: MatchRecord, game_id: str, at_ms: int) -> list[Notification]:
    """One ``match.found`` per ticket of a match made (pure): ids stable, never a token."""
    seats = [NotifiedSeat(i, s.type, s.name, s.external_id) for i, s in enumerate(record.seats)]
    return [
        Notification(
            id=f"{game_id}-match-{ticket_id}",
            kind="match.found",
            game_id=game_id,
            version=1,
            at_ms=at_ms,
            seat=seat,
            seats=seats,
            ticket_id=ticket_id,
        )
        for ticket_id, seat in record.tickets
    ]


def table_of(
    group: Group, rng: random.Random
) -> tuple[list[SeatSpec], list[str | None], list[int]]:
    """The group's seats in a random order: who sits where, each seat's token hash, and
    each ticket's seat (in the group's order)."""
    order = list(range(group.seat_count))
    rng.shuffle(order)
    seats: list[SeatSpec] = [SeatSpec("bot", group.bot_level)] * group.seat_count
    hashes: list[str | None] = [None] * group.seat_count
    placed = []
    for ticket, seat in zip(group.tickets, order, strict=False):
        seats[seat] = SeatSpec("human", None, ticket.spec.name, ticket.spec.external_id)
        hashes[seat] = ticket.token_hash
        placed.append(seat)
    return seats, hashes, placed


class Matcher:
    def __init__(
        self, tickets: MatchTickets, maker: GameMaker, notifier: MatchNotifier, name: str
    ) -> None:
        self.tickets = tickets
        self.maker = maker
        self.notifier = notifier
        self.name = name
        self._rng = random.Random(secrets.randbits(64))
        self._known: dict[str, dict[str, Ticket]] = {}  # per key: waiting tickets read
        self._leased_at: float | None = None  # when the lease was last taken or renewed
        self._held: dict[str, float] = {}  # keys found at their quota: until when left out

    async def run(self, stop: asyncio.Event) -> None:
        """Pass after pass while holding the lease, until ``stop``."""
        while not stop.is_set():
            pause = IDLE_EVERY_SECONDS
            try:
                if await self.tickets.hold_lease(self.name, LEASE_MS):
                    self._leased_at = time.monotonic()
                    await self.pass_once(int(time.time() * 1000))
                    pause = PASS_EVERY_SECONDS
                else:
                    self._leased_at = None
            except (redis.exceptions.RedisError, OSError) as exc:
                self._leased_at = None
                log.warning("matchmaking pass failed (%s: %s)", type(exc).__name__, exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            await self.tickets.release_lease(self.name)

    async def _still_leased(self) -> bool:
        """Renew the lease once a third of it has passed; False if another matcher has it
        now (this pass stops). A pass run outside `run` holds no lease and checks none."""
        if self._leased_at is None:
            return True
        if time.monotonic() - self._leased_at < LEASE_MS / 3000:
            return True
        if not await self.tickets.hold_lease(self.name, LEASE_MS):
            self._leased_at = None
            return False
        self._leased_at = time.monotonic()
        return True

    async def pass_once(self, now_ms: int) -> Passed:
        """Plan every key's groups, then make them one group of each key in turn, so a
        key with a long queue of groups delays another key's first game by one game at
        most (and a key at its quota drops out after one try)."""
        passed = Passed()
        queues: list[tuple[str, deque[Group]]] = []
        known: dict[str, dict[str, Ticket]] = {}
        for owner in await self.tickets.owners(now_ms - OWNERS_FOR_MS):
            if not await self._still_leased():
                return passed
            await self._recover(owner, now_ms, passed)
            if self._held.get(owner, 0.0) > time.monotonic():
                known[owner] = self._known.get(owner, {})
                continue
            waiting = await self.tickets.waiting(owner, MAX_POOL, self._known.get(owner))
            known[owner] = {t.id: t for t in waiting if t.status == "waiting"}
            for ticket in waiting:
                if ticket.status_at(now_ms) == "expired" and await self.tickets.expire(
                    ticket, now_ms
                ):
                    passed.expired += 1
            planned = plan(waiting, now_ms)
            if planned:
                queues.append((owner, deque(planned)))
        self._known = known
        while queues:
            for entry in list(queues):
                owner, groups = entry
                if not await self._make(owner, groups.popleft(), now_ms, passed) or not groups:
                    queues.remove(entry)
            if not await self._still_leased():
                break
        return passed

    async def _make(self, owner: str, group: Group, now_ms: int, passed: Passed) -> bool:
        """Make one group's game; False when the key's quota is full (stop for this key)."""
        game_id = secrets.token_hex(12)
        first = group.tickets[0].spec
        seats, hashes, placed = table_of(group, self._rng)
        record = MatchRecord(
            owner=owner,
            game=first.game,
            options=first.options,
            seats=seats,
            token_hashes=hashes,
            tickets=[(t.id, seat) for t, seat in zip(group.tickets, placed, strict=True)],
            made_ms=now_ms,
            clock=first.clock,
        )
        try:
            async with self.maker.quota.slot(owner) as slot:
                if await self.tickets.seat(record, game_id, now_ms):
                    passed.lost_races += 1
                    return True
                try:
                    await self.maker.make_in(slot, _new_game(record, game_id))
                except GameExists:  # a recovering matcher made it meanwhile
                    slot.game_id = game_id
                except Exception:
                    # Not made (the event store away?): the record stays, and a later pass
                    # makes the game (`_recover`); the tickets stay seated meanwhile.
                    log.warning("a matched game could not be made yet", exc_info=True)
                    return True
        except ActiveGameLimit:
            # Its tickets wait; its planning too, for a while: a key holding a backlog at
            # its quota costs a pass no more than a key without tickets.
            passed.held_back.append(owner)
            self._held[owner] = time.monotonic() + HELD_BACK_SECONDS
            return False
        await self._made(record, game_id, passed)
        passed.seated += len(group.tickets)
        return True

    async def _made(self, record: MatchRecord, game_id: str, passed: Passed) -> None:
        at_ms = int(time.time() * 1000)
        await self.tickets.finish(record, game_id, at_ms)
        await self.notifier.found(record, game_id, at_ms)
        passed.games += 1

    async def _recover(self, owner: str, now_ms: int, passed: Passed) -> None:
        """Make the games of matches seated long ago and never reported made."""
        for game_id, record in await self.tickets.stale_matches(owner, now_ms - STALE_MATCH_MS):
            if not await self.maker.games.exists(game_id):
                # The quota was checked when the match was seated; a crash in between may
                # let the key go one game over it, never a seated ticket without its game.
                with contextlib.suppress(GameExists):
                    await self.maker.games.create(_new_game(record, game_id))
            await self._made(record, game_id, passed)
            passed.recovered += 1


def _new_game(record: MatchRecord, game_id: str) -> NewGame:
    return NewGame(
        record.owner,
        record.game,
        record.options,
        record.seats,
        game_id=game_id,
        token_hashes=record.token_hashes,
        clock=record.clock or DEFAULT_CLOCK,
    )
