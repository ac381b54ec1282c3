"""Acts: everything that can change a stream, as data.

An act is what a client, a job or the lobby asks of a game (a move, a commitment, a
claim, the scoring job's result…). The match engine answers each with the events it
causes, or refuses it with a `domain.errors.DomainError`; the act is stored beside those
events, so a verifier holding the seed can re-run every decision (`domain.verify`).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from domain.engine import AnyGame, BotLevel, tagged_union


class MakeMove(msgspec.Struct, frozen=True, tag="move", tag_field="kind"):
    """A public move by ``seat``; ``move`` is the command as JSON (tag included)."""

    seat: int
    move: dict[str, Any]


class CommitSeal(msgspec.Struct, frozen=True, tag="commit", tag_field="kind"):
    """``seat`` commits a hash of its secret choice in sealed ``step`` (None: the current one)."""

    seat: int
    commitment: str
    step: str | None = None


class RevealSeal(msgspec.Struct, frozen=True, tag="reveal", tag_field="kind"):
    """``seat`` reveals the move and salt it committed to."""

    seat: int
    move: dict[str, Any]
    salt: str


class RecordResult(msgspec.Struct, frozen=True, tag="result", tag_field="kind"):
    """The scoring job's act: record the final result once."""


class TimeOut(msgspec.Struct, frozen=True, tag="timeout", tag_field="kind"):
    """The deadline job's act: ``seat`` did not ``action`` in ``step`` in time."""

    seat: int
    action: Literal["move", "commit", "reveal"]
    step: str


class Abandon(msgspec.Struct, frozen=True, tag="abandon", tag_field="kind"):
    """The sweep's act: nobody has acted for ``idle_seconds``; end the game unfinished."""

    idle_seconds: int


class Resign(msgspec.Struct, frozen=True, tag="resign", tag_field="kind"):
    """``seat`` gives up: a bot plays it from now on, as when a deadline passes."""

    seat: int


class Abort(msgspec.Struct, frozen=True, tag="abort", tag_field="kind"):
    """The creator's act: end the unfinished game without a result."""


class ClaimSeat(msgspec.Struct, frozen=True, tag="claim", tag_field="kind"):
    """A person claims open ``seat`` with its invite (the service checked the invite, and
    lets only the game's API key name an ``external_id``). A seat created with one keeps it
    whatever the claim names (`Match.bound`)."""

    seat: int
    name: str | None = None
    external_id: str | None = None


class LeaveSeat(msgspec.Struct, frozen=True, tag="leave", tag_field="kind"):
    """The claimer of ``seat`` leaves before the start: the seat is open again."""

    seat: int


class FillSeats(msgspec.Struct, frozen=True, tag="fill", tag_field="kind"):
    """The creator's act: bots of ``level`` take every open seat; the game starts."""

    level: BotLevel


class Rematch(msgspec.Struct, frozen=True, tag="rematch", tag_field="kind"):
    """Record the next game of this table (once: a later rematch finds the first)."""

    game_id: str


Act = (
    MakeMove
    | CommitSeal
    | RevealSeal
    | RecordResult
    | TimeOut
    | Abandon
    | Resign
    | Abort
    | ClaimSeat
    | LeaveSeat
    | FillSeats
    | Rematch
)


def command_union(game: AnyGame) -> Any:
    """The game's commands as one tagged union: a move posted as JSON decodes into it."""
    return tagged_union(game.command_types)
