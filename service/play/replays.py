"""Replays of finished games: every event unredacted, the acts, and the seed."""

from __future__ import annotations

import msgspec

from domain.rng import seed_commitment
from domain.verify import ReplayDocument, ReplayRecord
from service.play.errors import GameNotFinished
from service.play.records import Loaded
from service.store.event_store import EventStore


def opened(loaded: Loaded) -> Loaded:
    """``loaded`` once the game is over (its replay is open); 409 while it runs."""
    if not loaded.engine.ended(loaded.match):
        raise GameNotFinished("the replay opens when the game is over")
    return loaded


async def replay_document(store: EventStore, loaded: Loaded) -> ReplayDocument:
    """The full record of a game. Only for a game that is over (`opened`): it holds the
    seed."""
    seed = await store.seed(loaded.game_id)
    records: list[ReplayRecord] = []
    after = 0
    while True:
        page = await store.read(loaded.game_id, after=after, count=1000)
        if not page:
            break
        for stored in page:
            records.append(
                ReplayRecord(
                    version=stored.version,
                    event=msgspec.json.decode(stored.data),
                    act=msgspec.json.decode(stored.cause) if stored.cause else None,
                    at_ms=stored.at_ms,
                )
            )
        after = page[-1].version
    return ReplayDocument(
        game_id=loaded.game_id,
        game=loaded.engine.game.name,
        seed=seed.hex(),
        seed_commitment=seed_commitment(seed),
        events=records,
    )
