"""Archived games read the same: every kind of game, played to each ending (its result
recorded, aborted, abandoned), archived, and every read compared byte for byte with what it
answered while the game was hot; then a rematch of the archived game (restored first) and
the archive of both games again; and a retried act's first answer from the archive.

Real processes: the app over the embedded Redis, and a real worker that scores the games.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import redis
import zstandard
from litestar import Litestar
from litestar.testing import TestClient

from domain import registry
from domain.match import event_union
from service.app import create_app
from service.follow_ups import abandonment
from service.play.game_service import GameService
from service.play.snapshots import snapshot_format
from service.settings import Settings
from service.store import archive as archives
from service.store.event_store import Opening
from service.store.keys import INDEX_BUCKETS, active_games_key, archive_key, game_activity_key
from service.wiring import open_wiring
from stakeout.cli import _verify
from tests.archiving import Sent
from tests.archiving import create as _create
from tests.archiving import listing as _listing
from tests.archiving import play as _play
from tests.archiving import reads as _reads
from tests.helpers import API_KEY, auth, wait_for

ENDINGS = ("finished", "aborted", "abandoned")
FIRST_ACTS: dict[str, list[Any]] = {}  # every act of the finished games, as sent


@pytest.fixture
def app_client(settings: Settings, worker: Any) -> Iterator[TestClient[Litestar]]:
    with TestClient(app=create_app(settings)) as test_client:
        yield test_client


def _keys_of(connection: redis.Redis, game_id: str) -> set[str]:
    return {k.decode() for k in connection.scan_iter(match=f"game:{{{game_id}}}:*")}


def _verified(tmp_path: Path, document: bytes) -> int:
    path = tmp_path / f"replay-{hashlib.sha256(document).hexdigest()[:8]}.json"
    path.write_bytes(document)
    return _verify(path)


async def _archive(settings: Settings, game_ids: list[str]) -> list[str]:
    """Archive the games now, as the worker's job does once the window has passed."""
    async with open_wiring(settings) as wiring:
        return [(await wiring.archiver.archive(g, 2**62)).said for g in game_ids]


async def _abandon(settings: Settings, game_id: str) -> None:
    async with open_wiring(settings) as wiring:
        assert await abandonment.abandon(wiring.games, wiring.activity, game_id, 3 * 3600_000)


def _end(
    client: Any, settings: Settings, game_id: str, tokens: list[str], ending: str, rng: Any
) -> Sent:
    if ending == "finished":
        last = _play(client, game_id, tokens, rng, None, FIRST_ACTS.setdefault(game_id, []))
        wait_for(lambda: client.get(f"/v1/games/{game_id}").json()["status"] == "finished")
        wait_for(lambda: _recorded(client, game_id), timeout=60)
        return last
    last = _play(client, game_id, tokens, rng, 3)
    if ending == "aborted":
        response = client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY))
        assert response.status_code == 200, response.text
    else:
        asyncio.run(_abandon(settings, game_id))
    return last


def _recorded(client: Any, game_id: str) -> bool:
    events = client.get(f"/v1/games/{game_id}/events", params={"after": 0, "limit": 500})
    page = events.json()["events"]
    return bool(page) and page[-1]["event"]["type"] == "game.result_recorded"


def _retry(client: Any, last: Sent) -> httpx.Response:
    path, body, token, key, _ = last
    response: httpx.Response = client.post(
        path, json=body, headers={**auth(token), "Idempotency-Key": key}
    )
    return response


def test_every_kind_of_game_reads_the_same_archived_as_hot(
    app_client: TestClient[Litestar], settings: Settings, clean_redis: str, tmp_path: Path
) -> None:
    client = app_client
    rng = random.Random(2812)
    games: list[tuple[str, list[str], Any]] = []
    abandoned = set()
    for game in registry.games():
        for ending in ENDINGS:
            created = _create(client, game.name, game.min_seats, public=ending == "finished")
            tokens = [s["token"] for s in created["seats"]]
            last = _end(client, settings, created["id"], tokens, ending, rng)
            games.append((created["id"], tokens, last))
            if ending == "abandoned":
                abandoned.add(created["id"])
    ids = [g for g, _, _ in games]
    hot = {g: _reads(client, g, t) for g, t, _ in games}
    hot_retries = {g: _retry(client, last).content for g, _, last in games}
    # The first act of each finished game: its seat acted more than four times since.
    firsts = {g: FIRST_ACTS[g][0] for g, _, _ in games if g in FIRST_ACTS}
    for first in firsts.values():
        assert _retry(client, first).json()["replayed"] is True
    hot_listing = _listing(client)

    said = asyncio.run(_archive(settings, ids))
    assert all(s.startswith("archived at version") for s in said), said
    connection = redis.Redis.from_url(clean_redis)
    try:
        for game_id in ids:  # one key left of each game: its archive
            found = {k.decode() for k in connection.scan_iter(match=f"game:{{{game_id}}}:*")}
            assert found == {archive_key(game_id)}
        for bucket in range(INDEX_BUCKETS):  # and no index of active games holds them
            assert connection.zcard(active_games_key(bucket)) == 0
            assert connection.zcard(game_activity_key(bucket)) == 0
            assert connection.zcard(f"lobby:public:{{p{bucket}}}") == 0
    finally:
        connection.close()
    assert asyncio.run(_archive(settings, ids)) == ["already archived"] * len(ids)

    for game_id, tokens, last in games:
        archived = _reads(client, game_id, tokens)
        assert archived.keys() == hot[game_id].keys()
        differ = [name for name in archived if archived[name] != hot[game_id][name]]
        assert differ == [], f"{game_id}: {differ[:5]}"
        # A retried act gets the answer a retry got while the game was hot (an archive
        # keeps each caller's last four records); an older act retried is decided again
        # on the game that is over, and refused.
        assert _retry(client, last).content == hot_retries[game_id]
        if game_id in firsts:
            late = _retry(client, firsts[game_id])
            assert late.status_code == 409, late.text
            assert late.json()["type"] == "urn:stakeout:problem:game-finished"
        # `stakeout verify` says the same of both (it verifies finished and aborted games;
        # an abandoned one it calls not over, hot or archived).
        verdict = _verified(tmp_path, archived["replay document"])
        assert verdict == _verified(tmp_path, hot[game_id]["replay document"])
        assert verdict == (1 if game_id in abandoned else 0)
    assert _listing(client) == hot_listing


def test_a_rematch_of_an_archived_game_restores_it_and_both_are_archived_again(
    app_client: TestClient[Litestar], settings: Settings, clean_redis: str
) -> None:
    client = app_client
    rng = random.Random(2813)
    created = _create(client, "fbi", 3)
    old, tokens = created["id"], [s["token"] for s in created["seats"]]
    _end(client, settings, old, tokens, "finished", rng)
    assert asyncio.run(_archive(settings, [old]))[0].startswith("archived")

    made = client.post(f"/v1/games/{old}/rematch", headers=auth(tokens[0]))
    assert made.status_code in (200, 201), made.text
    new, new_token = made.json()["game_id"], made.json()["token"]
    connection = redis.Redis.from_url(clean_redis)
    try:
        assert not connection.exists(archive_key(old))  # restored, then changed
        assert client.get(f"/v1/games/{old}").json()["rematch"] == {"game_id": new}
        seat = made.json()["seat"]
        assert client.post(f"/v1/games/{new}/abort", headers=auth(API_KEY)).status_code == 200
        hot_old = _reads(client, old, tokens)
        hot_new = _reads(client, new, [new_token])
        said = asyncio.run(_archive(settings, [old, new]))
        assert all(s.startswith("archived") for s in said), said
        assert connection.exists(archive_key(old))
        assert connection.exists(archive_key(new))
        assert _reads(client, old, tokens) == hot_old
        # The rematch's seat token (granted after creation) is read from the archive.
        assert _reads(client, new, [new_token]) == hot_new
        mine = client.get(f"/v1/games/{new}", headers=auth(new_token)).json()
        assert mine["you"] == seat

        # Another seat asks for its rematch seat: found in the archived old game; its
        # token is granted into the new game's archive (rewritten: no process reads the
        # old one from its cache), which stays archived.
        before = connection.get(archive_key(new))
        again = client.post(f"/v1/games/{old}/rematch", headers=auth(tokens[1]))
        assert again.status_code in (200, 201), again.text
        assert again.json()["game_id"] == new
        view = client.get(f"/v1/games/{new}", headers=auth(again.json()["token"]))
        assert view.status_code == 200
        assert view.json()["you"] == again.json()["seat"]
        assert _keys_of(connection, old) == {archive_key(old)}  # only looked at
        assert _keys_of(connection, new) == {archive_key(new)}
        assert connection.get(archive_key(new)) != before
        # The same answer every time, and nothing written again.
        same = client.post(f"/v1/games/{old}/rematch", headers=auth(tokens[1]))
        assert same.json() == again.json()
        after = connection.get(archive_key(new))
        assert client.get(f"/v1/games/{new}", headers=auth(new_token)).json()["you"] == seat
        assert connection.get(archive_key(new)) == after
    finally:
        connection.close()


def test_an_archive_carries_a_snapshot_and_one_made_before_without_still_loads(
    client: TestClient[Litestar], settings: Settings, clean_redis: str
) -> None:
    """An archived game's cold load folds nothing (the archive holds the match folded at its
    version), whatever its length; an archive of before, with no snapshot, is folded from
    its entries. Both read byte for byte as the game did hot."""
    rng = random.Random(2814)
    created = _create(client, "bonnie_clyde", 2)
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    _play(client, game_id, tokens, rng, 60)
    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)).is_success
    hot = _reads(client, game_id, tokens)
    assert asyncio.run(_archive(settings, [game_id]))[0].startswith("archived")

    async def cold() -> tuple[Opening, bytes, bytes]:
        """The archived game's opening, its match loaded cold, and folded from the start."""
        async with open_wiring(settings) as wiring:
            opening = await wiring.store.opening(game_id, snapshot_format())
            loaded = await GameService(wiring.store).load(game_id)
            stored = await wiring.store.read(game_id)
            decoder = msgspec.json.Decoder(event_union(loaded.engine.game))
            folded = loaded.engine.replay([decoder.decode(s.data) for s in stored])
            return opening, msgspec.json.encode(loaded.match), msgspec.json.encode(folded)

    opening, loaded, folded = asyncio.run(cold())
    version = opening.events[-1].version
    assert opening.archived
    assert version > 60
    assert opening.snapshot_version == version  # its own entry only: nothing to fold
    assert [e.version for e in opening.events] == [version]
    assert loaded == folded
    with TestClient(app=create_app(settings)) as fresh:
        assert _reads(fresh, game_id, tokens) == hot

    # The archive as this code wrote it before archives carried a snapshot.
    connection = redis.Redis.from_url(clean_redis)
    try:
        value = connection.get(archive_key(game_id))
        assert isinstance(value, bytes), value
        header = archives.header_of(value)
        assert header is not None
        record = msgspec.to_builtins(archives.decode(value).record, builtin_types=(bytes,))
        del record["snapshot"]
        start = header.length + header.summary_length
        old = value[:start] + zstandard.compress(msgspec.msgpack.encode(record))
        connection.set(archive_key(game_id), old)
    finally:
        connection.close()
    opening, loaded, folded = asyncio.run(cold())
    assert opening.snapshot_version == 0
    assert [e.version for e in opening.events] == list(range(1, version + 1))
    assert loaded == folded
    with TestClient(app=create_app(settings)) as fresh:
        assert _reads(fresh, game_id, tokens) == hot
