"""Matchmaking tickets: what a player waits for, and every change of a ticket as one script.

A ticket is one hash, ``owner:{<key>}:mm:ticket:<id>`` (its ``spec`` as JSON, its
``status``, when it expires, its secret's hash and its seat token's hash; once seated, its
game and seat). Waiting tickets are also in the key's pool (``owner:{<key>}:mm:pool``, by
creation time). Every key of a ticket's API key shares its hash tag, so each change below
is one script, atomic across the tickets it touches (on Redis Cluster too):

- ``seat``: the matcher seats a group of tickets in a game it is about to create: only if
  every one of them is still waiting (and not expired), all at once (``matching``, with the
  game and the seat), together with the match's record (``owner:{<key>}:mm:match:<game>``:
  how to create the game) in the key's set of matches being made. Otherwise nothing
  changes and the script names the tickets that were not waiting.
- ``cancel``: a waiting ticket is cancelled; a seated one is not (its game is being made,
  or made). So a cancel racing the matcher either wins (the group is not seated; the
  matcher tries again without that ticket) or loses (the ticket is matched): never a game
  with a seat whose ticket was cancelled, never a ticket in two games.
- ``finish``: the game exists: its tickets are ``matched`` and the record is dropped.
- ``release``: the game could not be made (the key's quota of active games is full):
  its tickets wait again (or expire), as if never seated.
- ``expire``: a waiting ticket past its time is ``expired``.

Secrets are kept as hashes only. The ticket's secret is shown once, at creation; it is
what its holder (the player's app) authenticates with. The seat token of the game a ticket
is matched into is derived from that secret,
``base64url(HMAC-SHA256(secret, "stakeout-match-seat"))``: the ticket keeps the token's
hash, the matcher creates the game with that hash in the seat (no token is ever stored,
in a ticket, a notification or a job), and ``GET`` of the ticket with its secret derives
the token again, the same on every call.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from domain.engine import BotLevel
from domain.match import Clock, SeatSpec
from service.matchmaking.errors import PlayerTicketLimit, TicketLimit
from service.play.errors import Contention
from service.play.records import token_hash
from service.store.clients import AnyRedis
from service.store.keys import (
    MM_LEASE,
    MM_OWNERS,
    mm_making_key,
    mm_match_key,
    mm_player_key,
    mm_pool_key,
    mm_ticket_key,
    mm_ticket_owner_key,
)
from service.store.scripts.leases import DROP_LEASE, TAKE_LEASE

TicketStatus = Literal["waiting", "matching", "matched", "cancelled", "expired"]
SECRET_PREFIX = "mmt_"  # noqa: S105 - the prefix of every ticket secret, not a secret
KEPT_AFTER_SECONDS = 24 * 3600  # a ticket is kept this long after it expires
MATCH_RECORD_SECONDS = 24 * 3600
CREATE_TRIES = 5  # a creation raced by changes to the player's tickets is tried again

# A new ticket, within the caps: the key's pool (its waiting tickets) below ARGV[8], the
# player's waiting tickets below ARGV[9] (0: no cap). The player's set holds the ids of its
# tickets; the caller read them and passes their keys (KEYS[4..]): if the set changed in
# between the answer is 'retry'. Members that no longer wait leave the set here (nothing
# else has to know about it).
_CREATE = """
local now = tonumber(ARGV[10])
if redis.call('ZCARD', KEYS[3]) ~= #KEYS - 3 then return 'retry' end
local waiting = 0
for i = 4, #KEYS do
  local id = ARGV[7 + i]
  if not redis.call('ZSCORE', KEYS[3], id) then return 'retry' end
  local status = redis.call('HGET', KEYS[i], 'status')
  if status == 'waiting' and tonumber(redis.call('HGET', KEYS[i], 'expires_ms')) > now then
    waiting = waiting + 1
  else
    redis.call('ZREM', KEYS[3], id)
  end
end
local key_cap, player_cap = tonumber(ARGV[8]), tonumber(ARGV[9])
if key_cap > 0 and redis.call('ZCARD', KEYS[2]) >= key_cap then return 'key' end
if player_cap > 0 and waiting >= player_cap then return 'player' end
redis.call('HSET', KEYS[1], 'spec', ARGV[2], 'status', 'waiting', 'created_ms', ARGV[3],
  'expires_ms', ARGV[4], 'secret', ARGV[5], 'token', ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
if redis.call('TTL', KEYS[3]) < tonumber(ARGV[7]) then
  redis.call('EXPIRE', KEYS[3], ARGV[7])
end
return 'ok'
"""

_SEAT = """
local now = tonumber(ARGV[2])
local bad = {}
for i = 1, #ARGV - 4, 2 do
  local ticket = KEYS[3 + (i + 1) / 2]
  local status = redis.call('HGET', ticket, 'status')
  local expires = tonumber(redis.call('HGET', ticket, 'expires_ms') or '0')
  if status ~= 'waiting' or expires <= now then
    table.insert(bad, ARGV[4 + i])
  end
end
if #bad > 0 then return bad end
for i = 1, #ARGV - 4, 2 do
  local ticket = KEYS[3 + (i + 1) / 2]
  redis.call('HSET', ticket, 'status', 'matching', 'game_id', ARGV[1], 'seat', ARGV[5 + i])
  redis.call('ZREM', KEYS[1], ARGV[4 + i])
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[4])
return bad
"""

_CANCEL = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return '' end
if status == 'waiting' then
  redis.call('HSET', KEYS[1], 'status', 'cancelled', 'done_ms', ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 'cancelled'
end
return status
"""

_FINISH = """
for i = 3, #KEYS do
  if redis.call('HGET', KEYS[i], 'status') == 'matching'
     and redis.call('HGET', KEYS[i], 'game_id') == ARGV[1] then
    redis.call('HSET', KEYS[i], 'status', 'matched', 'done_ms', ARGV[2])
  end
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
"""

_RELEASE = """
local now = tonumber(ARGV[2])
for i = 3, #KEYS - 1 do
  local ticket = KEYS[i]
  if redis.call('HGET', ticket, 'status') == 'matching'
     and redis.call('HGET', ticket, 'game_id') == ARGV[1] then
    redis.call('HDEL', ticket, 'game_id', 'seat')
    if tonumber(redis.call('HGET', ticket, 'expires_ms')) <= now then
      redis.call('HSET', ticket, 'status', 'expired', 'done_ms', ARGV[2])
    else
      redis.call('HSET', ticket, 'status', 'waiting')
      redis.call('ZADD', KEYS[1], redis.call('HGET', ticket, 'created_ms'), ARGV[i])
    end
  end
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[#KEYS])
return 1
"""


_EXPIRE = """
if redis.call('HGET', KEYS[1], 'status') == 'waiting'
   and tonumber(redis.call('HGET', KEYS[1], 'expires_ms')) <= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'status', 'expired', 'done_ms', ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
redis.call('ZREM', KEYS[2], ARGV[1])
return 0
"""


# A matched game's clock unless its tickets name one (issue 34: a matched player who never
# moves no longer holds the table until it is abandoned).
DEFAULT_CLOCK = Clock(initial_seconds=300, increment_seconds=10, on_time_out="bot_seat")


class TicketSpec(msgspec.Struct, frozen=True):
    """What a ticket asks for (stored as the ticket's ``spec``)."""

    game: str
    options: dict[str, Any]  # defaults filled in (tickets match on equal options)
    seats: list[int]  # acceptable seat counts, ascending
    external_id: str
    name: str | None
    bots_after_ms: int | None  # wait this long for people, then bots fill; None: never
    bot_level: BotLevel
    created_ms: int
    expires_ms: int
    mu: float  # the player's rating estimate in this game when the ticket was made
    clock: Clock | None = None  # the game's clock; None (a ticket from before): the default

    @property
    def pool(self) -> str:
        """Tickets match only within one pool: one game kind with equal options and clock."""
        clock = msgspec.to_builtins(self.clock or DEFAULT_CLOCK)
        asked = {"options": self.options, "clock": clock}
        return self.game + "|" + json.dumps(asked, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class TicketCaps:
    """Waiting tickets at once (0: no cap): of one API key, and of one of its players
    (``STAKEOUT_MAX_WAITING_TICKETS``, ``STAKEOUT_MAX_PLAYER_TICKETS``)."""

    per_key: int
    per_player: int


@dataclass(frozen=True)
class Ticket:
    id: str
    owner: str
    spec: TicketSpec
    status: TicketStatus
    secret_hash: str
    token_hash: str
    game_id: str | None = None
    seat: int | None = None
    done_ms: int | None = None

    def status_at(self, now_ms: int) -> TicketStatus:
        """The status as a reader sees it: a waiting ticket past its time is expired,
        whether or not the matcher has marked it yet."""
        if self.status == "waiting" and self.spec.expires_ms <= now_ms:
            return "expired"
        return self.status


class MatchRecord(msgspec.Struct, frozen=True):
    """A match being made: enough to create its game again after a crash."""

    owner: str
    game: str
    options: dict[str, Any]
    seats: list[SeatSpec]
    token_hashes: list[str | None]
    tickets: list[tuple[str, int]]  # (ticket id, seat)
    made_ms: int
    clock: Clock | None = None  # None (a record from before): the default clock


def seat_token(secret: str) -> str:
    """The seat token of the game a ticket is matched into (see the module docstring)."""
    mac = hmac.new(secret.encode(), b"stakeout-match-seat", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def _text(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else value


_spec = msgspec.json.Decoder(TicketSpec)
_record = msgspec.json.Decoder(MatchRecord)
_encode = msgspec.json.Encoder().encode


def _ticket(ticket_id: str, owner: str, raw: dict[Any, Any]) -> Ticket | None:
    fields = {_text(k): _text(v) for k, v in raw.items()}
    if "spec" not in fields:
        return None
    seat = fields.get("seat")
    done = fields.get("done_ms")
    return Ticket(
        id=ticket_id,
        owner=owner,
        spec=_spec.decode(fields["spec"] or ""),
        status=fields.get("status") or "waiting",  # type: ignore[arg-type]
        secret_hash=fields.get("secret") or "",
        token_hash=fields.get("token") or "",
        game_id=fields.get("game_id"),
        seat=int(seat) if seat is not None else None,
        done_ms=int(done) if done is not None else None,
    )


class MatchTickets:
    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis
        self._create = redis.register_script(_CREATE)
        self._seat = redis.register_script(_SEAT)
        self._cancel = redis.register_script(_CANCEL)
        self._finish = redis.register_script(_FINISH)
        self._release = redis.register_script(_RELEASE)
        self._expire = redis.register_script(_EXPIRE)
        self._hold = redis.register_script(TAKE_LEASE)
        self._let_go = redis.register_script(DROP_LEASE)

    async def create(self, owner: str, spec: TicketSpec, caps: TicketCaps) -> tuple[Ticket, str]:
        """A new waiting ticket and its secret (shown once), within ``caps``:
        `TicketLimit` or `PlayerTicketLimit` (409) beyond them."""
        ticket_id = secrets.token_hex(12)
        secret = new_secret()
        ticket = Ticket(
            ticket_id, owner, spec, "waiting", token_hash(secret), token_hash(seat_token(secret))
        )
        lifetime = (spec.expires_ms - spec.created_ms) // 1000 + KEPT_AFTER_SECONDS
        # The owner's lookup first: a GET by the secret works as soon as the answer is out.
        await self.redis.set(mm_ticket_owner_key(ticket_id), owner, ex=lifetime)
        player = mm_player_key(owner, spec.external_id)
        args: list[Any] = [ticket_id, _encode(spec), spec.created_ms, spec.expires_ms]
        args += [ticket.secret_hash, ticket.token_hash, lifetime, caps.per_key, caps.per_player]
        args.append(spec.created_ms)
        said = "retry"
        for _ in range(CREATE_TRIES):
            rows: list[Any] = await self.redis.zrange(player, 0, -1)
            others = [_text(r) or "" for r in rows]
            keys = [mm_ticket_key(owner, ticket_id), mm_pool_key(owner), player]
            keys += [mm_ticket_key(owner, other) for other in others]
            said = _text(await self._create(keys=keys, args=[*args, *others])) or ""
            if said != "retry":
                break
        if said != "ok":
            await self.redis.delete(mm_ticket_owner_key(ticket_id))
            if said == "key":
                raise TicketLimit(
                    f"this API key has {caps.per_key} waiting tickets, as many as it may; "
                    "wait for matches, or cancel some"
                )
            if said == "player":
                raise PlayerTicketLimit(
                    f"this player waits in {caps.per_player} queues already, as many as it "
                    "may; cancel one first"
                )
            raise Contention("the player's tickets kept changing; retry")
        await self.redis.zadd(MM_OWNERS, {owner: spec.created_ms})
        return ticket, secret

    async def owner_of(self, ticket_id: str) -> str | None:
        return _text(await self.redis.get(mm_ticket_owner_key(ticket_id)))

    async def get(self, owner: str, ticket_id: str) -> Ticket | None:
        raw: Any = await self.redis.hgetall(mm_ticket_key(owner, ticket_id))
        return _ticket(ticket_id, owner, raw) if raw else None

    async def many(self, owner: str, ticket_ids: Sequence[str]) -> list[Ticket]:
        """The tickets of ``ticket_ids`` that exist (one round trip)."""
        pipe = self.redis.pipeline(transaction=False)
        for ticket_id in ticket_ids:
            pipe.hgetall(mm_ticket_key(owner, ticket_id))
        rows = await pipe.execute()
        found = [_ticket(i, owner, r) if r else None for i, r in zip(ticket_ids, rows, strict=True)]
        return [t for t in found if t is not None]

    async def cancel(self, ticket: Ticket, now_ms: int) -> str:
        """``cancelled`` (now), or the status that kept it from being cancelled."""
        keys = [mm_ticket_key(ticket.owner, ticket.id), mm_pool_key(ticket.owner)]
        return _text(await self._cancel(keys=keys, args=[ticket.id, now_ms])) or ""

    # ---- the matcher's ------------------------------------------------------------------

    async def hold_lease(self, name: str, lease_ms: int) -> bool:
        """Take or renew the matcher's lease (one matcher works at a time)."""
        held: Any = await self._hold(keys=[MM_LEASE], args=[name, lease_ms])
        return bool(held == 1)

    async def release_lease(self, name: str) -> None:
        await self._let_go(keys=[MM_LEASE], args=[name])

    async def owners(self, since_ms: int) -> list[str]:
        """API keys that made a ticket since ``since_ms`` (older ones are forgotten: their
        tickets have all expired)."""
        await self.redis.zremrangebyscore(MM_OWNERS, "-inf", f"({since_ms}")
        rows: list[Any] = await self.redis.zrange(MM_OWNERS, 0, -1)
        return [_text(r) or "" for r in rows]

    async def waiting(
        self, owner: str, count: int, known: Mapping[str, Ticket] | None = None
    ) -> list[Ticket]:
        """Up to ``count`` of the key's waiting tickets, oldest first. Tickets in ``known``
        (waiting when read before: a ticket's spec never changes) are not read again."""
        rows: list[Any] = await self.redis.zrange(mm_pool_key(owner), 0, count - 1)
        ids = [_text(i) or "" for i in rows]
        known = known or {}
        fresh = await self.many(owner, [i for i in ids if i not in known])
        read = {t.id: t for t in fresh}
        tickets = [t for i in ids if (t := known.get(i) or read.get(i)) is not None]
        if len(tickets) < len(ids):  # tickets gone (their key expired): out of the pool
            gone = set(ids) - {t.id for t in tickets}
            await self.redis.zrem(mm_pool_key(owner), *gone)
        return tickets

    async def seat(self, record: MatchRecord, game_id: str, now_ms: int) -> list[str]:
        """Seat the record's tickets in ``game_id`` (all, or none): the ids that were no
        longer waiting (empty: seated)."""
        owner = record.owner
        keys = [mm_pool_key(owner), mm_making_key(owner), mm_match_key(owner, game_id)]
        keys += [mm_ticket_key(owner, ticket_id) for ticket_id, _ in record.tickets]
        args: list[Any] = [game_id, now_ms, _encode(record), MATCH_RECORD_SECONDS]
        for ticket_id, seat in record.tickets:
            args += [ticket_id, seat]
        bad: list[Any] = await self._seat(keys=keys, args=args)
        return [_text(b) or "" for b in bad]

    async def finish(self, record: MatchRecord, game_id: str, now_ms: int) -> None:
        owner = record.owner
        keys = [mm_making_key(owner), mm_match_key(owner, game_id)]
        keys += [mm_ticket_key(owner, ticket_id) for ticket_id, _ in record.tickets]
        await self._finish(keys=keys, args=[game_id, now_ms])

    async def release(self, record: MatchRecord, game_id: str, now_ms: int) -> None:
        owner = record.owner
        keys = [mm_pool_key(owner), mm_making_key(owner)]
        keys += [mm_ticket_key(owner, ticket_id) for ticket_id, _ in record.tickets]
        keys.append(mm_match_key(owner, game_id))
        args: list[Any] = [game_id, now_ms, *[ticket_id for ticket_id, _ in record.tickets]]
        await self._release(keys=keys, args=args)

    async def expire(self, ticket: Ticket, now_ms: int) -> bool:
        keys = [mm_ticket_key(ticket.owner, ticket.id), mm_pool_key(ticket.owner)]
        return bool(await self._expire(keys=keys, args=[ticket.id, now_ms]))

    async def stale_matches(self, owner: str, before_ms: int) -> list[tuple[str, MatchRecord]]:
        """Matches seated before ``before_ms`` whose game was never reported made (their
        matcher died in between): (game id, record)."""
        rows: list[Any] = await self.redis.zrangebyscore(mm_making_key(owner), "-inf", before_ms)
        out = []
        for row in rows:
            game_id = _text(row) or ""
            raw = await self.redis.get(mm_match_key(owner, game_id))
            if raw is None:
                await self.redis.zrem(mm_making_key(owner), game_id)
                continue
            out.append((game_id, _record.decode(raw)))
        return out
