"""What the game service hands out: a game's creation facts, its snapshots, and what an act
did. Plain values; nothing here touches Redis."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.engine import Outcome
from domain.match import Act, AwaitingAction, Match, MatchEngine, SeatSpec


class GameMeta(msgspec.Struct, frozen=True):
    """A game's creation facts, stored beside its stream (``game:{<id>}:meta``)."""

    game: str
    owner: str
    seats: list[SeatSpec]
    token_hashes: list[str | None]
    created_ms: int
    private: bool = False
    turn_seconds: int | None = None
    away_seconds: int | None = None  # service/play/away.py
    # Listed in the lobby (GET /v1/lobby); seat tokens granted after creation (invites,
    # rematches) live in the store's seat-token hash; the game this one is a rematch of.
    public: bool = False
    late_tokens: bool = False
    rematch_of: str | None = None
    # The hashes of its open seats' invite codes: their ``invite:<hash>`` keys are deleted
    # when the game is archived (none in the metas written before they were recorded).
    invites: list[str] = msgspec.field(default_factory=list)


@dataclass(frozen=True)
class Loaded:
    """One immutable snapshot of a game at a version. ``tip`` identifies the stream's entry
    at that version, ``changed_ms`` is when it was appended."""

    game_id: str
    engine: MatchEngine
    match: Match
    meta: GameMeta
    tip: str = ""
    changed_ms: int = 0

    @functools.cached_property
    def awaited(self) -> tuple[AwaitingAction, ...]:
        """``engine.awaiting(match)``, worked out once per snapshot (an act's answer, its
        follow-up and the next view read all ask; the snapshot never changes)."""
        return tuple(self.engine.awaiting(self.match))

    @functools.cached_property
    def result(self) -> Outcome | None:
        """``engine.result(match)``, worked out once per snapshot: a view, its status, the
        game list's summary, presence and the follow-up each ask, and a game's result is
        its rules' reckoning (FBI's scores) every time."""
        return self.engine.result(self.match)

    @functools.cached_property
    def running(self) -> frozenset[int]:
        """The seats whose clock runs now: the human seats awaited (`awaited`, once)."""
        seats = self.match.seats
        return frozenset(a.seat for a in self.awaited if seats[a.seat].type == "human")


@dataclass(frozen=True, slots=True)
class Submission:
    """An act for one game, and what guards its append.

    ``key``: the Idempotency-Key as stored (namespaced by who acts, see
    `service.store.keys`); ``fingerprint`` tells the key's retry from another request made
    under it. ``expected_version`` (If-Match): refused with `VersionMismatch` unless the
    game is at it; without it an act that lost a race is decided again on the fresh state.
    ``grants``: seat -> token hash stored with the act's events ("" withdraws a token)."""

    game_id: str
    act: Act
    key: str | None = None
    fingerprint: str = ""
    expected_version: int | None = None
    grants: Mapping[int, str] | None = None


@dataclass(frozen=True)
class Versioned:
    version: int
    event: Any
    at_ms: int = 0


@dataclass(frozen=True)
class Applied:
    """An act's answer: the version after it, its events, and the game as it left it
    (``loaded``: the snapshot the act produced; for a replayed answer, the latest one
    known)."""

    version: int
    events: list[Versioned]
    loaded: Loaded
    replayed: bool = False


@dataclass(frozen=True)
class Created:
    game_id: str
    version: int
    seed_commitment: str
    tokens: list[str | None]


@dataclass(frozen=True)
class Change:
    """What just happened to a game: who acted (None: creation, scoring) and when."""

    acted_seat: int | None
    at_ms: int
    events: tuple[Any, ...] = ()  # the events appended (what account feeds announce)


def token_hash(token: str) -> str:
    """What is kept of a seat token or API key: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()
