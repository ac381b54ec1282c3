"""Verify a finished game from its replay: nobody, the server included, cheated.

A replay holds every event unredacted, the act that produced each batch of events, and the
secret seed. `verify` checks that

1. the seed hashes to the ``seed_commitment`` published at creation;
2. the opening events are exactly what the seed deals (every setup shuffle re-derived);
3. every later batch of events is exactly what its act produces when re-run against the
   replayed state with the seed (every later shuffle, draw and forfeit re-derived; every
   move legal; every reveal hashing to its commitment — the rules check it again);
   in a game with a clock, every bank is re-derived from the events' times, so a
   time-out recorded before its seat's bank was empty is refused;
4. the recorded result is the result of the replayed game (an aborted game has none: the
   replay proves every event up to the abort).

Any difference raises `VerificationError` with the version where it was found.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from domain import registry
from domain.descriptions import AT_MS, GAME_ID, GAME_NAME
from domain.engine import doc
from domain.errors import DomainError, VerificationError
from domain.match import Act, GameCreated, Match, MatchEngine, event_union
from domain.rng import seed_commitment

# VerificationError lives with the domain's other errors; it is what `verify` raises.
__all__ = ["ReplayDocument", "ReplayRecord", "VerificationError", "Verified", "verify"]


class ReplayRecord(msgspec.Struct, frozen=True):
    """One event of a replay."""

    version: Annotated[int, doc("The event's position in the log, from 1.")]
    event: Annotated[dict[str, Any], doc("The event, unredacted.")]
    act: Annotated[
        dict[str, Any] | None,
        doc(
            "On the first event of each batch: the act that produced the batch (a move, "
            "commitment, reveal, timeout, resignation, abort or the result); null otherwise."
        ),
    ] = None
    at_ms: Annotated[int, doc(AT_MS)] = 0


# What ``GET /v1/games/{id}/replay`` returns and ``stakeout verify`` reads. Its docstring
# is its description in the contract, one line (a wrapped docstring keeps its line breaks).
class ReplayDocument(msgspec.Struct, frozen=True):
    __doc__ = (
        "A finished (or abandoned or aborted) game, whole: every event unredacted, the act "
        "behind each batch and the secret seed; `stakeout verify` re-runs it."
    )

    game_id: Annotated[str, doc(GAME_ID)]
    game: Annotated[str, doc(GAME_NAME)]
    seed: Annotated[str, doc("The secret shuffle seed (hex); SHA-256 of it is `seed_commitment`.")]
    seed_commitment: Annotated[str, doc("The commitment published at creation.")]
    events: Annotated[list[ReplayRecord], doc("Every event, oldest first.")]


class Verified(msgspec.Struct, frozen=True):
    game_id: str
    game: str
    events: int
    acts: int
    scores: list[int]
    winners: list[int]
    status: str = "finished"  # or "aborted": ended by its creator, no scores or winners


def verify(replay: ReplayDocument) -> Verified:
    engine = registry.engine_for(replay.game)
    if engine is None:
        raise VerificationError(f"unknown game {replay.game!r}")
    seed = _seed(replay)
    events = _decode(engine, replay)
    created = _created(replay, events)
    match, index = _opening(engine, replay, events, created, seed)
    acts = 0
    while index < len(events):
        match, produced = _replay_act(engine, match, replay, events, index, seed)
        index += produced
        acts += 1
    return _outcome(engine, match, replay, acts)


def _seed(replay: ReplayDocument) -> bytes:
    """The published seed, checked against the commitment published at creation."""
    try:
        seed = bytes.fromhex(replay.seed)
    except ValueError as exc:
        raise VerificationError("the seed is not hex") from exc
    if seed_commitment(seed) != replay.seed_commitment:
        raise VerificationError("the seed does not hash to the published seed commitment")
    return seed


def _created(replay: ReplayDocument, events: list[Any]) -> GameCreated:
    """The stream's first event, once its versions are checked to run 1..N."""
    versions = [r.version for r in replay.events]
    if versions != list(range(1, len(versions) + 1)):
        raise VerificationError("event versions are not 1..N without gaps")
    created = events[0] if events else None
    if not isinstance(created, GameCreated):
        raise VerificationError("the stream does not start with game.created")
    if created.seed_commitment != replay.seed_commitment or created.game_id != replay.game_id:
        raise VerificationError("game.created does not match the replay's game id and commitment")
    return created


def _opening(
    engine: MatchEngine,
    replay: ReplayDocument,
    events: list[Any],
    created: GameCreated,
    seed: bytes,
) -> tuple[Match, int]:
    """The match after the opening deal, checked to be the one the seed deals, and how
    many events that deal is."""
    try:
        opening = engine.create(
            created.game_id, created.options, created.seats, seed, created.clock
        )
    except DomainError as exc:
        raise VerificationError(f"the game's options do not set up: {exc.detail}") from exc
    _same(opening, events[: len(opening)], 1, "the opening deal is not what the seed deals")
    match: Match | None = None
    for event, record in zip(opening, replay.events, strict=False):
        match = engine.fold_stored(match, event, record.at_ms)
    assert match is not None
    return match, len(opening)


def _replay_act(
    engine: MatchEngine,
    match: Match,
    replay: ReplayDocument,
    events: list[Any],
    index: int,
    seed: bytes,
) -> tuple[Match, int]:
    """The act recorded on the event at ``index``, performed again: the match after it,
    and how many events it made (checked to be the recorded ones)."""
    record = replay.events[index]
    if record.act is None:
        raise VerificationError(f"version {record.version}: an event without the act that made it")
    act_type: Any = Act
    try:
        act = msgspec.convert(record.act, act_type)
        match = engine.charged(match, record.at_ms)
        produced = engine.perform(match, act, seed)
    except (msgspec.ValidationError, DomainError) as exc:
        detail = exc.detail if isinstance(exc, DomainError) else str(exc)
        raise VerificationError(f"version {record.version}: the act is refused: {detail}") from exc
    if not produced:
        raise VerificationError(f"version {record.version}: the act produces no events")
    _same(
        produced,
        events[index : index + len(produced)],
        record.version,
        "the events differ from what the act produces",
    )
    for event in produced:
        match = engine.fold(match, event)
    return engine.credited(match, act), len(produced)


def _outcome(engine: MatchEngine, match: Match, replay: ReplayDocument, acts: int) -> Verified:
    result = engine.result(match)
    if result is None and match.aborted:
        return Verified(replay.game_id, replay.game, len(replay.events), acts, [], [], "aborted")
    if result is None:
        raise VerificationError("the replayed game is not over")
    if match.recorded is not None and match.recorded != result:
        raise VerificationError("the recorded result is not the replayed game's result")
    return Verified(
        replay.game_id, replay.game, len(replay.events), acts, result.scores, result.winners
    )


def _decode(engine: MatchEngine, replay: ReplayDocument) -> list[Any]:
    union = event_union(engine.game)
    out = []
    for record in replay.events:
        try:
            out.append(msgspec.convert(record.event, union))
        except msgspec.ValidationError as exc:
            raise VerificationError(f"version {record.version}: unreadable event: {exc}") from exc
    return out


def _same(expected: list[Any], actual: list[Any], version: int, message: str) -> None:
    if len(actual) < len(expected):
        raise VerificationError(f"version {version}: {message} (the stream ends early)")
    for offset, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if msgspec.to_builtins(want) != msgspec.to_builtins(got):
            raise VerificationError(f"version {version + offset}: {message}")
