"""Presence and away seats (issue #34 §2 and §3) against real processes: two API processes
and an RQ worker on one Redis of the test's own, with a short presence window.

- A seat seen by one API process is online in the other's views; its request window
  lapses and it is away, with the moment it was last seen.
- A live feed of the seat, open on one process, keeps it online past the window in the
  other's views; once it is closed the seat is away again. A feed open on the other
  process gets a ``presence`` message for each of these changes.
- A game with ``away_seconds``: a seat never seen has its turns played as time-outs (the
  view says since when, and until "back"); once the player is online again the seat's
  next turn waits for them and their move is accepted.
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
import time
from typing import Any

import httpx

from domain.sealed import commitment
from tests.helpers import API_KEY, wait_for
from tests.processes import Processes, auth, service_env

WINDOW_SECONDS = 2


class Feed:
    """A live feed read over a raw socket on a thread of its own, so the test closes it
    when it wants (closing is what it tests). ``lines`` are its NDJSON lines, decoded."""

    def __init__(self, base: str, path: str, token: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)))
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            "Accept: application/x-ndjson\r\nConnection: close\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        self.lines: list[dict[str, Any]] = []
        self._buffer = b""
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            self._buffer += chunk
            *done, self._buffer = self._buffer.split(b"\n")
            for line in done:
                text = line.strip()
                if text.startswith(b"{"):
                    self.lines.append(json.loads(text))

    def presence(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("kind") == "presence"]

    def close(self) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self._thread.join(timeout=5)


def _start(processes: Processes, redis_url: str, apis: int) -> list[str]:
    env = service_env(redis_url, STAKEOUT_PRESENCE_SECONDS=str(WINDOW_SECONDS))
    bases = [processes.api(env).base for _ in range(apis)]
    processes.worker(env)
    return bases


def _create(base: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {"game": "fbi", "seats": seats, **extra}
    created = httpx.post(f"{base}/v1/games", json=body, headers=auth(API_KEY), timeout=10)
    assert created.status_code == 201, created.text
    result: dict[str, Any] = created.json()
    return result


def _seat(base: str, game_id: str, seat: int) -> dict[str, Any]:
    """A seat as a spectator (the API key: no seat is seen by it) sees it."""
    got = httpx.get(f"{base}/v1/games/{game_id}", headers=auth(API_KEY), timeout=10)
    assert got.status_code == 200, got.text
    found: dict[str, Any] = got.json()["seats"][seat]
    return found


def _status(base: str, game_id: str, seat: int) -> str:
    return str(_seat(base, game_id, seat)["presence"]["status"])


def test_presence_across_two_api_processes(processes: Processes, own_redis: str) -> None:
    a, b = _start(processes, own_redis, apis=2)
    created = _create(a, [{"type": "human"}, {"type": "human"}, {"type": "bot", "level": "random"}])
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    assert _seat(a, game_id, 0)["presence"] == {"status": "never", "last_seen_ms": None}
    assert _seat(a, game_id, 2)["presence"] is None  # a bot seat

    # Seat 1 watches the table on A (its own feed keeps it online all along).
    watcher = Feed(a, f"/v1/games/{game_id}/stream?feed=view", tokens[1])

    def statuses() -> list[str]:
        """Seat 0's statuses as the watcher's presence messages told them, in order."""
        return [m["seats"][0]["presence"]["status"] for m in watcher.presence()]

    try:
        wait_for(lambda: watcher.lines, timeout=10)
        # Seat 0 is seen by B: online in A's views, then away once its window lapsed.
        asked = int(time.time() * 1000)
        assert httpx.get(f"{b}/v1/games/{game_id}", headers=auth(tokens[0])).status_code == 200
        wait_for(lambda: _status(a, game_id, 0) == "online", timeout=10)
        wait_for(lambda: _status(a, game_id, 0) == "away", timeout=15)
        last_seen = _seat(a, game_id, 0)["presence"]["last_seen_ms"]
        assert asked <= last_seen <= asked + 2000
        assert _status(b, game_id, 0) == "away"
        # The watcher's feed tells it too (the feeds read presence once a second: a state
        # shorter than that may pass unseen, so the feed below opens only once it was told).
        wait_for(lambda: statuses()[-1:] == ["away"], timeout=10)

        # Seat 0 opens a feed on B: online in A's views past its request window.
        feed = Feed(b, f"/v1/games/{game_id}/stream", tokens[0])
        try:
            wait_for(lambda: _status(a, game_id, 0) == "online", timeout=10)
            opened = time.monotonic()
            wait_for(lambda: time.monotonic() - opened > WINDOW_SECONDS + 1.5, timeout=10)
            assert _status(a, game_id, 0) == "online"
            assert _status(b, game_id, 0) == "online"
        finally:
            feed.close()
        wait_for(lambda: _status(a, game_id, 0) == "away", timeout=10)

        # The watcher's feed said so: away, online, away (and never an event id for it).
        wait_for(lambda: statuses()[-3:] == ["away", "online", "away"], timeout=10)
        for message in watcher.presence():
            assert "version" not in message
            assert message["seats"][2] == {"seat": 2, "presence": None, "substituted": None}
        assert watcher.lines[0]["kind"] == "view"
        assert watcher.lines[0]["view"]["seats"][1]["presence"]["status"] == "online"
    finally:
        watcher.close()


def _timed_out(base: str, game_id: str, seat: int) -> list[dict[str, Any]]:
    got = httpx.get(
        f"{base}/v1/games/{game_id}/events", params={"limit": 500}, headers=auth(API_KEY)
    )
    assert got.status_code == 200, got.text
    return [
        e
        for e in got.json()["events"]
        if e["event"]["type"] in ("turn.timed_out", "seal.forfeited")
        and e["event"].get("seat") == seat
    ]


def test_an_away_seat_is_played_until_its_player_is_back(
    processes: Processes, own_redis: str
) -> None:
    (api,) = _start(processes, own_redis, apis=1)
    # The key's account feed is recorded from now on (its seat.awaited say who is away).
    assert httpx.post(f"{api}/v1/feed/tickets", headers=auth(API_KEY)).status_code == 201
    bots = [{"type": "bot", "level": "random"}] * 2
    created = _create(api, [{"type": "human"}, *bots], away_seconds=5)
    game_id, token = created["id"], created["seats"][0]["token"]

    # Never seen: its turns are played as time-outs, and the view says so.
    wait_for(lambda: len(_timed_out(api, game_id, 0)) >= 2, timeout=90, interval=0.5)
    seat = _seat(api, game_id, 0)
    assert seat["presence"]["status"] == "never"
    assert seat["substituted"]["until"] == "back"
    first = _timed_out(api, game_id, 0)[0]
    assert seat["substituted"]["since_ms"] <= first["at_ms"]
    assert seat["resigned"] is False

    # Back: online, no longer substituted; its next turn waits for it, and its move counts.
    def mine() -> dict[str, Any] | None:
        got = httpx.get(f"{api}/v1/games/{game_id}", headers=auth(token), timeout=10).json()
        awaited = [a for a in got["awaiting"] if a["seat"] == 0]
        return got if awaited and got["status"] == "active" else None

    back = wait_for(mine, timeout=60, interval=0.1)
    assert back["seats"][0]["presence"]["status"] == "online"
    assert back["seats"][0]["substituted"] is None
    missed = len(_timed_out(api, game_id, 0))
    # Longer than away_seconds: still its turn, as it is online (it keeps looking).
    still = time.monotonic()
    wait_for(lambda: mine() is not None and time.monotonic() - still > 6, timeout=30)
    view = mine()
    assert view is not None
    action = next(a for a in view["awaiting"] if a["seat"] == 0)
    if action["action"] == "move":
        path, body = "moves", view["legal"][0]
    else:  # a sealed step's commitment (a reveal only ever follows the seat's own commit)
        assert action["action"] == "commit", action
        digest = commitment(game_id, action["step"], 0, view["legal"][0], secrets.token_hex(16))
        path, body = "commitments", {"commitment": digest}
    moved = httpx.post(f"{api}/v1/games/{game_id}/{path}", json=body, headers=auth(token))
    assert moved.status_code == 200, moved.text
    assert len(_timed_out(api, game_id, 0)) == missed

    # seat.awaited carried the seat's presence: never seen while away, online once back
    # (it keeps looking until its next turn is announced).
    wait_for(lambda: mine() is not None and time.monotonic() - still > 8, timeout=60)
    presence = [
        n["presence"]
        for n in _awaited_notes(api, game_id, lambda n: n["presence"]["status"] == "online")
    ]
    assert presence[0] == {"status": "never", "last_seen_ms": None}
    assert presence[-1]["status"] == "online"
    assert presence[-1]["last_seen_ms"] is not None


def _awaited_notes(base: str, game_id: str, last: Any) -> list[dict[str, Any]]:
    """The account feed's seat.awaited notifications of seat 0 of the game, from the
    feed's start up to the first that ``last`` accepts."""
    out: list[dict[str, Any]] = []
    headers = {**auth(API_KEY), "Accept": "application/x-ndjson"}
    with httpx.stream(
        "GET", f"{base}/v1/feed", params={"after": "0-0"}, headers=headers, timeout=30
    ) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            note = json.loads(line) if line else {}
            ours = note.get("kind") == "seat.awaited" and note["game_id"] == game_id
            if ours and note["seat"] == 0:
                out.append(note)
                if last(note):
                    return out
    raise AssertionError(f"the feed ended: {out}")
