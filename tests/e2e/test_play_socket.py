"""Games played over play sockets (``GET /v1/games/{id}/play``) against a real API process:
every game kind to its end with sockets only, sealed steps included; a socket and an HTTP
client on one game; a seat opened with a stream ticket; a spectator; and bad frames, each
refused with a problem frame or a documented close, changing nothing."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
from typing import Any

import httpx
import pytest
import redis
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from domain import registry
from service.api.v1.play import CLOSE_GAME_OVER
from tests.e2e.play_sockets import SocketSeat, frame, open_seat
from tests.helpers import API_KEY, act, auth
from tests.processes import quick_options, read_seed, read_stream, verify_stream

SEATS = 3


def _create(base: str, game: str, seats: int = SEATS) -> dict[str, Any]:
    created = httpx.post(
        base + "/v1/games",
        json={
            "game": game,
            "seats": [{"type": "human", "name": f"P{i}"} for i in range(seats)],
            "options": quick_options(game),
        },
        headers=auth(API_KEY),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return body


def _http_view(base: str, game_id: str, token: str) -> dict[str, Any]:
    got = httpx.get(f"{base}/v1/games/{game_id}", headers=auth(token), timeout=30)
    assert got.status_code == 200, got.text
    view: dict[str, Any] = got.json()
    return view


async def _until_closed(ws: ClientConnection) -> list[dict[str, Any]]:
    """Every frame until the server closes the socket."""
    frames = []
    while True:
        try:
            frames.append(await frame(ws))
        except ConnectionClosed:
            return frames


async def _play_all(seats: list[SocketSeat]) -> list[int | None]:
    async with asyncio.timeout(240):
        return list(await asyncio.gather(*(s.play() for s in seats)))


@pytest.mark.parametrize("game", registry.names())
def test_every_game_kind_is_played_to_its_end_over_sockets_only(
    server_url: str, redis_url: str, worker: subprocess.Popen[bytes], game: str
) -> None:
    # The worker records the result: the socket closes after that view (4100).
    created = _create(server_url, game)
    game_id = created["id"]
    seats = [
        SocketSeat(server_url, game_id, s["seat"], s["token"], random.Random(s["seat"]))
        for s in created["seats"]
    ]
    codes = asyncio.run(_play_all(seats))
    assert codes == [CLOSE_GAME_OVER] * SEATS
    kinds = {m["type"] for s in seats for m in s.log}
    assert kinds <= {"view", "answer", "presence"}
    for seat in seats:
        assert seat.view is not None
        assert seat.view["status"] == "finished"
        assert seat.acts > 0
        # The last view pushed is the view GET answers the same token.
        # (Its server clock aside: the time the view was made.)
        got = _http_view(server_url, game_id, seat.token)
        assert {**seat.view, "server_time_ms": 0} == {**got, "server_time_ms": 0}
        # Redacted for its seat: no other seat's token reaches it.
        text = json.dumps(seat.log)
        assert not any(o.token in text for o in seats if o is not seat)
    # Sealed steps were played (commit, then reveal) where the game has them.
    sent = [m for s in seats for m in s.log if m["type"] == "answer"]
    assert len(sent) == sum(s.acts for s in seats)
    client = redis.Redis.from_url(redis_url)
    verified = verify_stream(read_stream(client, game_id), read_seed(client, game_id))
    assert verified.match.version == seats[0].version


def test_a_socket_and_an_http_client_play_one_game(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    created = _create(server_url, "bonnie_clyde", seats=2)
    game_id = created["id"]
    first, second = created["seats"]
    socket_seat = SocketSeat(server_url, game_id, 0, first["token"], random.Random(7))

    def http_player() -> None:
        rng = random.Random(8)
        kept: dict[int, tuple[dict[str, Any], str]] = {}
        version = 0
        with httpx.Client(base_url=server_url, timeout=30) as client:
            for _ in range(10_000):
                view = client.get(
                    f"/v1/games/{game_id}",
                    params={"after_version": version, "wait": 5},
                    headers=auth(second["token"]),
                ).json()
                version = view["version"]
                if view["status"] == "finished":
                    return
                mine = [a for a in view["awaiting"] if a["seat"] == 1]
                if mine:
                    move = rng.choice(view["legal"]) if view["legal"] else {}
                    answer = act(client, game_id, second["token"], 1, mine[0], move, kept)
                    assert answer.status_code == 200, answer.text
                    version = answer.json()["version"] - 1  # its view, at once

    async def both() -> int | None:
        async with asyncio.timeout(240):
            code, _ = await asyncio.gather(socket_seat.play(), asyncio.to_thread(http_player))
            return code

    assert asyncio.run(both()) == CLOSE_GAME_OVER
    assert socket_seat.view is not None
    assert socket_seat.view["status"] == "finished"
    # The socket was pushed the HTTP seat's acts too: views of versions it did not make.
    own = {m["body"]["version"] for m in socket_seat.log if m["type"] == "answer"}
    views = [m["version"] for m in socket_seat.log if m["type"] == "view"]
    assert set(views) - own


def test_a_ticket_opens_a_seat_and_an_api_key_a_spectator(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    created = _create(server_url, "bonnie_clyde", seats=2)
    game_id = created["id"]
    first, second = created["seats"]
    ticket = httpx.post(
        f"{server_url}/v1/games/{game_id}/stream-tickets", headers=auth(first["token"])
    ).json()["ticket"]

    async def scenario() -> None:
        spectator = await open_seat(server_url, game_id, API_KEY)
        watched = await frame(spectator)
        assert watched["type"] == "view"
        assert watched["view"]["you"] is None
        # A spectator may not act: the POST's refusal, as a problem frame.
        views = [_http_view(server_url, game_id, s["token"]) for s in (first, second)]
        legal = next(v["legal"][0] for v in views if v["legal"])
        body = {"type": "move", "ref": "s", "body": legal}
        await spectator.send(json.dumps(body))
        refused = await frame(spectator)
        assert refused["type"] == "problem", refused
        assert (refused["ref"], refused["status"]) == ("s", 403)
        # Nor one without a credential: 401, as its POST.
        anonymous = await open_seat(server_url, game_id)
        assert (await frame(anonymous))["view"]["you"] is None
        await anonymous.send(json.dumps(body))
        assert (await frame(anonymous))["status"] == 401
        await anonymous.close()
        seats = [
            SocketSeat(server_url, game_id, 0, first["token"], random.Random(1)),
            SocketSeat(server_url, game_id, 1, second["token"], random.Random(2)),
        ]
        async with asyncio.timeout(240):
            codes = await asyncio.gather(seats[0].play(ticket=ticket), seats[1].play())
        assert list(codes) == [CLOSE_GAME_OVER, CLOSE_GAME_OVER]
        # The spectator was pushed every version up to the end, then the close.
        last = watched["view"]["version"]
        for pushed in await _until_closed(spectator):
            if pushed["type"] == "view":
                assert pushed["version"] > last
                last = pushed["version"]
        assert spectator.close_code == CLOSE_GAME_OVER
        assert last == seats[1].version
        # The ticket worked once.
        reused = await open_seat(server_url, game_id, query=f"ticket={ticket}")
        refusal = await frame(reused)
        assert (refusal["type"], refusal["status"]) == ("problem", 401)
        with pytest.raises(ConnectionClosed):
            await frame(reused)
        assert reused.close_code == 4401

    asyncio.run(scenario())


def _bad_frames(legal: dict[str, Any]) -> list[tuple[str | bytes, int, str]]:
    """(frame, status, problem type) of frames the channel refuses."""
    too_long = json.dumps({"type": "move", "ref": "x", "body": {"pad": "a" * 70_000}})
    return [
        ("not json", 400, "invalid-request"),
        (b"\x00\x01", 400, "invalid-request"),
        (json.dumps({"type": "dance", "ref": "u"}), 400, "invalid-request"),
        (json.dumps({"type": "move", "ref": "f", "bogus": 1}), 400, "invalid-request"),
        (json.dumps({"type": "move", "ref": "b"}), 400, "invalid-request"),
        (json.dumps({"type": "move", "ref": "m", "body": {"no": "move"}}), 400, "invalid-request"),
        (
            json.dumps({"type": "move", "ref": "k", "body": legal, "idempotency_key": "a b"}),
            400,
            "invalid-request",
        ),
        (
            json.dumps({"type": "move", "ref": "v", "body": legal, "if_match": 1}),
            412,
            "version-mismatch",
        ),
        (too_long, 413, "payload-too-large"),
    ]


def test_bad_frames_get_a_problem_and_change_nothing(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    created = _create(server_url, "bonnie_clyde", seats=2)
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    views = [_http_view(server_url, game_id, t) for t in tokens]
    mover = next(i for i, v in enumerate(views) if v["legal"])
    before = views[mover]

    async def scenario() -> None:
        ws = await open_seat(server_url, game_id, tokens[mover])
        first = await frame(ws)
        assert (first["type"], first["version"]) == ("view", before["version"])
        for sent, status, kind in _bad_frames(before["legal"][0]):
            await ws.send(sent)
            got = await frame(ws)
            assert got["type"] == "problem", (sent, got)
            assert got["status"] == status, (sent, got)
            assert got["body"]["type"] == "urn:stakeout:problem:" + kind, (sent, got)
            assert got["body"]["status"] == status
        # Still open, and answering.
        await ws.send(json.dumps({"type": "ping"}))
        assert await frame(ws) == {"type": "pong"}
        await ws.close()
        # A wrong credential, an unknown game, a token in the URL: a problem, then the close.
        refusals = [
            (await open_seat(server_url, game_id, "not-a-token"), 401, 4401),
            (await open_seat(server_url, "0" * 24, tokens[0]), 404, 4404),
            (await open_seat(server_url, game_id, query="token=" + tokens[0]), 400, 4400),
        ]
        for refused, status, code in refusals:
            got = await frame(refused)
            assert (got["type"], got["status"], got["ref"]) == ("problem", status, None)
            assert await _until_closed(refused) == []
            assert refused.close_code == code

    asyncio.run(scenario())
    # Nothing changed.
    after = _http_view(server_url, game_id, tokens[mover])
    assert after["version"] == before["version"]


def test_a_seat_is_told_when_another_opens_its_socket(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    created = _create(server_url, "fbi", seats=2)
    game_id = created["id"]
    first, second = created["seats"]

    def online(message: dict[str, Any]) -> bool:
        seat = message["seats"][1]["presence"]
        return message["type"] == "presence" and seat is not None and seat["status"] == "online"

    async def scenario() -> dict[str, Any]:
        watching = await open_seat(server_url, game_id, first["token"])
        assert (await frame(watching))["type"] == "view"
        other = await open_seat(server_url, game_id, second["token"])
        async with asyncio.timeout(30):
            while not online(message := await frame(watching)):
                assert message["type"] in ("view", "presence"), message
        await other.close()
        await watching.close()
        return message

    told = asyncio.run(scenario())
    assert [s["seat"] for s in told["seats"]] == [0, 1]
    assert set(told["seats"][0]) == {"seat", "presence", "substituted"}
