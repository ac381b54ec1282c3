"""GET /v1/feed over real HTTP: one feed of all an API key's games (a claim starts a game,
seats are awaited, an abort, a rematch), with names and external ids and never a token;
resumable with Last-Event-ID; a browser opens it with a single-use ticket."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from tests.conftest import start_worker, stop_worker
from tests.helpers import API_KEY, auth


def _lines(
    client: httpx.Client, count: int, keep: Any = None, **kwargs: Any
) -> list[dict[str, Any]]:
    """The first ``count`` notifications of the feed that ``keep`` accepts (NDJSON; other
    tests' games share the key), pings skipped."""
    out: list[dict[str, Any]] = []
    headers = {"Accept": "application/x-ndjson", **kwargs.pop("headers", {})}
    with client.stream("GET", "/v1/feed", headers=headers, **kwargs) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if not line:
                continue
            note = json.loads(line)
            if note["kind"] != "ping" and (keep is None or keep(note)):
                out.append(note)
            if len(out) >= count:
                break
    return out


def test_the_account_feed_follows_every_game_of_the_key(server_url: str, redis_url: str) -> None:
    games = start_worker(redis_url)  # its dispatcher writes the feed's entries
    try:
        _follow_every_game(server_url)
    finally:
        stop_worker(games)


def _follow_every_game(server_url: str) -> None:
    with httpx.Client(base_url=server_url, timeout=30) as client:
        # Asking for a feed ticket starts recording this key's feed.
        first_ticket = client.post("/v1/feed/tickets", headers=auth(API_KEY))
        assert first_ticket.status_code == 201, first_ticket.text
        time.sleep(1.1)  # the follow-ups learn within a second that the feed is read
        created = client.post(
            "/v1/games",
            json={
                "game": "bonnie_clyde",
                "seats": [{"type": "human", "name": "Ann", "external_id": "u1"}, {"type": "open"}],
            },
            headers=auth(API_KEY),
        ).json()
        game_id = created["id"]
        host = created["seats"][0]["token"]
        code = created["seats"][1]["invite"]["code"]
        guest = client.post(
            f"/v1/invites/{code}", json={"name": "Bo", "external_id": "u2"}, headers=auth(API_KEY)
        )
        assert guest.status_code == 201
        assert client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)).status_code == 200
        rematch = client.post(f"/v1/games/{game_id}/rematch", headers=auth(host)).json()

        def ours(notes: list[dict[str, Any]]) -> list[tuple[str, str]]:
            return [
                (n["kind"], n["game_id"])
                for n in notes
                if n["game_id"] in (game_id, rematch["game_id"])
            ]

        # In each game's order (the games' changes are followed up side by side, so the
        # feed interleaves two games as their follow-ups ran).
        expected = {
            game_id: ["game.started", "seat.awaited", "game.aborted", "rematch.created"],
            rematch["game_id"]: ["game.started", "seat.awaited"],
        }

        def mine(note: dict[str, Any]) -> bool:
            return note["game_id"] in (game_id, rematch["game_id"])

        notes = _lines(client, 6, mine, headers=auth(API_KEY), params={"after": "0-0"})
        assert {g: [k for k, h in ours(notes) if h == g] for g in expected} == expected
        started = next(n for n in notes if n["kind"] == "game.started" and n["game_id"] == game_id)
        assert [(s["name"], s["external_id"]) for s in started["seats"]] == [
            ("Ann", "u1"),
            ("Bo", "u2"),
        ]
        rematched = next(n for n in notes if n["kind"] == "rematch.created")
        assert rematched["rematch_game_id"] == rematch["game_id"]
        text = json.dumps(notes)
        assert host not in text
        assert guest.json()["token"] not in text
        # Resume: after the second entry's cursor the feed goes on with the third.
        # (Of this test's games: other tests' games, tickets and their matches share the key.)
        resumed = _lines(
            client, 1, mine, headers={**auth(API_KEY), "Last-Event-ID": notes[1]["cursor"]}
        )
        assert resumed[0]["cursor"] == notes[2]["cursor"]
        # A browser: a single-use ticket, SSE.
        ticket = client.post("/v1/feed/tickets", headers=auth(API_KEY)).json()["ticket"]
        with client.stream(
            "GET", "/v1/feed", params={"ticket": ticket, "after": notes[4]["cursor"]}
        ) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            fields: dict[str, str] = {}
            for line in response.iter_lines():
                if line.startswith(("id:", "event:", "data:")):
                    key, _, value = line.partition(": ")
                    fields[key] = value
                if "data" in fields:
                    if mine(json.loads(fields["data"])):
                        break
                    fields = {}
        assert fields["id"] == notes[5]["cursor"]
        assert fields["event"] == notes[5]["kind"]
        used = client.get("/v1/feed", params={"ticket": ticket})
        assert used.status_code == 401
        assert used.json()["type"] == "urn:stakeout:problem:invalid-ticket"
        refused = client.get("/v1/feed", params={"token": API_KEY})
        assert refused.status_code == 400
        assert client.get("/v1/feed").status_code == 401


def test_a_cursor_past_every_entry_id_waits_for_more(server_url: str) -> None:
    """The contract's cursor has up to 20 digits a part, beyond Redis's largest entry id
    (2^64 - 1): such a cursor is after every entry, so the feed only pings (it used to break
    off the answer with a Redis error)."""
    with httpx.Client(base_url=server_url, timeout=30) as client:
        headers = {"Accept": "application/x-ndjson", **auth(API_KEY)}
        for cursor in ("99999999999999999999-0", "0-99999999999999999999"):
            params = {"after": cursor}
            with client.stream("GET", "/v1/feed", headers=headers, params=params) as response:
                assert response.status_code == 200
                first = json.loads(next(line for line in response.iter_lines() if line))
            assert "kind" in first, first  # a notification or a ping, in a whole answer
            if cursor.endswith("-0"):  # after the largest millisecond nothing can come
                assert first["kind"] == "ping", first
