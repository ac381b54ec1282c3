"""Play sockets on Redis Cluster: two real API processes whose event store is a three-master
cluster (``REDIS_CLUSTER=1``, where each watched game has a live reader of its own), a real
worker; one seat on each process plays a whole game over its socket, each pushed the other's
acts."""

from __future__ import annotations

import asyncio
import random

import httpx

from service.api.v1.play import CLOSE_GAME_OVER
from tests.cluster.test_store_on_cluster import Cluster, cluster
from tests.e2e.play_sockets import SocketSeat
from tests.helpers import API_KEY
from tests.processes import Processes, auth, service_env

__all__ = ["cluster"]


def test_play_sockets_on_two_api_processes_over_the_cluster(
    cluster: Cluster, clean_redis: str, processes: Processes
) -> None:
    env = service_env(cluster.url, REDIS_CLUSTER="1", QUEUE_REDIS_URL=clean_redis)
    first, second = processes.api(env), processes.api(env)
    processes.worker(env)
    created = httpx.post(
        first.base + "/v1/games",
        json={
            "game": "bonnie_clyde",
            "seats": [{"type": "human"}, {"type": "human"}],
            "options": {"target": 10},
        },
        headers=auth(API_KEY),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    game_id, grants = created.json()["id"], created.json()["seats"]
    seats = [
        SocketSeat(base, game_id, g["seat"], g["token"], random.Random(g["seat"]))
        for base, g in zip((first.base, second.base), grants, strict=True)
    ]

    async def play() -> list[int | None]:
        async with asyncio.timeout(240):
            return list(await asyncio.gather(*(s.play() for s in seats)))

    assert asyncio.run(play()) == [CLOSE_GAME_OVER, CLOSE_GAME_OVER]
    assert seats[0].version == seats[1].version
    for seat, other in (seats, seats[::-1]):
        pushed = {m["version"] for m in seat.log if m["type"] == "view"}
        assert {a["version"] for a in other.answers} & pushed  # the other process's acts
