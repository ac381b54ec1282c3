"""Play sockets over two real API processes on one Valkey, with a real worker: views pushed
by either process reach the sockets of both; a seat that hangs up mid-game and reconnects
to the other process misses nothing; an API process killed mid-act leaves the act applied
once, its client retrying on the other process under the same Idempotency-Key; and a
SIGTERM closes the sockets still open (1012, service restart) and the process exits."""

from __future__ import annotations

import asyncio
import random
import signal
import threading
from typing import Any

import httpx
import redis

from service.api.v1.play import CLOSE_GAME_OVER
from tests.e2e.play_sockets import SocketSeat, frame, open_seat
from tests.helpers import API_KEY, wait_for
from tests.processes import Processes, auth, read_seed, read_stream, service_env, verify_stream

ABNORMAL = 1006  # the server went without a close frame (killed)


def _create(base: str) -> tuple[str, list[dict[str, Any]]]:
    created = httpx.post(
        base + "/v1/games",
        json={
            "game": "bonnie_clyde",
            "seats": [{"type": "human"}, {"type": "human"}],
            "options": {"target": 10},
        },
        headers=auth(API_KEY),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    body = created.json()
    return body["id"], body["seats"]


def _view(base: str, game_id: str, token: str, after: int = 0) -> dict[str, Any]:
    got = httpx.get(
        f"{base}/v1/games/{game_id}",
        params={"after_version": after, "wait": 5},
        headers=auth(token),
        timeout=30,
    )
    assert got.status_code == 200, got.text
    view: dict[str, Any] = got.json()
    return view


def _awaits(base: str, game_id: str, token: str, seat: int) -> dict[str, Any]:
    """The seat's view once the game awaits it (long polls, bounded)."""

    def awaited() -> dict[str, Any] | None:
        view = _view(base, game_id, token)
        return view if any(a["seat"] == seat for a in view["awaiting"]) else None

    found: dict[str, Any] = wait_for(awaited, timeout=60)
    return found


def test_play_sockets_over_two_api_processes(own_redis: str, processes: Processes) -> None:
    env = service_env(own_redis)
    first, second = processes.api(env), processes.api(env)
    processes.worker(env)
    store = redis.Redis.from_url(own_redis)

    # One seat on each process; the first hangs up after three acts and comes back on the
    # second process.
    game_id, grants = _create(first.base)
    one = SocketSeat(first.base, game_id, 0, grants[0]["token"], random.Random(1))
    two = SocketSeat(second.base, game_id, 1, grants[1]["token"], random.Random(2))

    async def reconnecting() -> list[int | None]:
        async with asyncio.timeout(240):
            other = asyncio.create_task(two.play())
            assert await one.play(stop_after_acts=3) is None
            left_at = one.version
            # The game goes on while it is away (the other seat's turn comes).
            await asyncio.to_thread(_view, second.base, game_id, grants[1]["token"], left_at)
            back = len(one.log)
            code = await one.play(http_base=second.base)
            # Its first frame back is the view as it is now: nothing in between is missed.
            assert one.log[back]["type"] == "view"
            assert one.log[back]["version"] >= left_at
            return [code, await other]

    assert asyncio.run(reconnecting()) == [CLOSE_GAME_OVER, CLOSE_GAME_OVER]
    assert one.view is not None
    assert two.view is not None
    assert one.view["status"] == two.view["status"] == "finished"
    verified = verify_stream(read_stream(store, game_id), read_seed(store, game_id))
    assert verified.match.version == one.version == two.version
    # Both seats were pushed the other's acts, made through the other process.
    assert {m["version"] for m in one.log if m["type"] == "view"} - {
        a["version"] for a in one.answers
    }

    # An act sent, applied, and its answer lost with the process (SIGKILL): the client sends
    # it again, under its key, to the other process, and it is applied once.
    game_id, grants = _create(first.base)
    one = SocketSeat(first.base, game_id, 0, grants[0]["token"], random.Random(3))
    two = SocketSeat(first.base, game_id, 1, grants[1]["token"], random.Random(4))

    async def killed() -> list[int | None]:
        async with asyncio.timeout(240):
            other = asyncio.create_task(two.play())
            assert await one.play(stop_after_acts=2) is None
            view = await asyncio.to_thread(_awaits, first.base, game_id, one.token, 0)
            one.view = view
            ws = await open_seat(first.base, game_id, one.token)
            assert (await frame(ws))["type"] == "view"
            await one.act(ws)  # the act whose answer is lost
            assert one.pending is not None
            await asyncio.to_thread(
                wait_for, lambda: len(read_stream(store, game_id)) > view["version"]
            )
            processes.stop(first.proc, signal.SIGKILL)
            assert await other == ABNORMAL
            lost = one.pending["ref"]
            codes = await asyncio.gather(
                one.play(http_base=second.base), two.play(http_base=second.base)
            )
            retried = [a for a, m in zip(one.answers, _answers(one.log), strict=True) if m == lost]
            assert len(retried) == 1
            assert retried[0]["replayed"] is True
            return list(codes)

    assert asyncio.run(killed()) == [CLOSE_GAME_OVER, CLOSE_GAME_OVER]
    # Applied once: every batch is exactly its act's events, versions without a gap.
    verified = verify_stream(read_stream(store, game_id), read_seed(store, game_id))
    assert verified.match.version == one.version

    # SIGTERM: a socket still open is closed for a reconnect; a live feed still open ends
    # whole (drained: the app's live readers reached from the server, not hung up on), and
    # the process exits.
    game_id, grants = _create(second.base)
    opened = threading.Event()

    def feed() -> list[str]:
        url = f"{second.base}/v1/games/{game_id}/stream?feed=view"
        with httpx.stream("GET", url, headers=auth(grants[1]["token"]), timeout=30) as got:
            lines = []
            for line in got.iter_lines():
                lines.append(line)
                opened.set()
            return lines  # read to its end: no incomplete chunked answer

    async def drained() -> tuple[int | None, list[str]]:
        reader = asyncio.create_task(asyncio.to_thread(feed))
        ws = await open_seat(second.base, game_id, grants[0]["token"])
        assert (await frame(ws))["type"] == "view"
        await asyncio.to_thread(opened.wait, 30)
        second.proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            await ws.wait_closed()
            return ws.close_code, await reader

    code, lines = asyncio.run(drained())
    assert code in (1001, 1012)
    assert "event: view" in lines
    assert processes.stop(second.proc) == 0


def _answers(log: list[dict[str, Any]]) -> list[str]:
    """The refs of the answers in a seat's log, in order."""
    return [m["ref"] for m in log if m["type"] == "answer"]
