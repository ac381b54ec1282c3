"""Live feeds (SSE over a real HTTP connection), replays and their verification."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from domain.verify import ReplayDocument, VerificationError, verify
from tests.helpers import API_KEY, auth, create, play_randomly, view

HUMANS2 = [{"type": "human"}, {"type": "human"}]


def _read_sse(response: httpx.Response, until: int | None = None) -> list[dict[str, Any]]:
    """Parse SSE event messages until the stream ends or ``until`` of them were read."""
    messages: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for line in response.iter_lines():
        if line == "":
            # A presence message is not an event (no id; tests/scale/test_presence.py).
            if "data" in current and current.get("event") != "presence":
                messages.append(current)
                if until is not None and len(messages) >= until:
                    return messages
            current = {}
        elif line.startswith(":"):
            continue
        else:
            key, _, value = line.partition(": ")
            current[key] = value
    return messages


def test_a_live_feed_follows_a_game_resumes_after_a_disconnect_and_ends_with_it(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    with httpx.Client(base_url=server_url, timeout=30) as client:
        created = create(client, "fbi", HUMANS2)
        game_id = created["id"]
        tokens = [s["token"] for s in created["seats"]]
        headers = auth(tokens[1])
        # First connection: read the backlog plus a few live events, then drop it.
        first: list[dict[str, Any]] = []
        with client.stream("GET", f"/v1/games/{game_id}/stream", headers=headers) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            backlog = created["version"]
            player = threading.Thread(target=play_randomly, args=(client, game_id, tokens, 1, 6))
            player.start()
            first = _read_sse(response, until=backlog + 3)
            player.join()
        versions = [int(m["id"]) for m in first]
        assert versions == list(range(1, backlog + 4))
        # Resume after a disconnect: Last-Event-ID picks up exactly where we left off.
        resume = {**headers, "Last-Event-ID": str(versions[-1])}
        with client.stream("GET", f"/v1/games/{game_id}/stream", headers=resume) as response:
            player = threading.Thread(target=play_randomly, args=(client, game_id, tokens, 2))
            player.start()
            rest = _read_sse(response)  # ends by itself once the result is recorded
            player.join()
        all_versions = versions + [int(m["id"]) for m in rest]
        assert all_versions == list(range(1, len(all_versions) + 1))
        assert rest[-1]["event"] == "game.result_recorded"
        # What seat 1 saw live is what its event log shows.
        log = []
        after = 0
        while True:
            page = client.get(
                f"/v1/games/{game_id}/events",
                params={"after": after, "limit": 500},
                headers=headers,
            ).json()
            log += page["events"]
            if not page["has_more"]:
                break
            after = page["next_after"]
        assert [json.loads(m["data"]) for m in first + rest] == log


def _finished_game(client: Any) -> tuple[str, list[str]]:
    created = create(client, "fbi", HUMANS2)
    tokens = [s["token"] for s in created["seats"]]
    play_randomly(client, created["id"], tokens, seed=3)
    return created["id"], tokens


def test_replay_opens_at_the_end_and_verifies(client: Any, tmp_path: Path) -> None:
    created = create(client, "fbi", HUMANS2)
    running = client.get(f"/v1/games/{created['id']}/replay")
    assert running.status_code == 409
    assert running.json()["type"] == "urn:stakeout:problem:game-not-finished"
    game_id, _ = _finished_game(client)
    response = client.get(f"/v1/games/{game_id}/replay")
    assert response.status_code == 200, response.text
    replay = msgspec.json.decode(response.content, type=ReplayDocument)
    verified = verify(replay)
    assert verified.game_id == game_id
    assert verified.scores == view(client, game_id)["result"]["scores"]
    path = tmp_path / "replay.json"
    path.write_bytes(response.content)
    cli = subprocess.run(
        [sys.executable, "-m", "stakeout.cli", "verify", str(path)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.startswith("verified:")


def _log(client: Any, game_id: str, token: str | None) -> list[dict[str, Any]]:
    headers = auth(token) if token else {}
    log: list[dict[str, Any]] = []
    after = 0
    while True:
        page = client.get(
            f"/v1/games/{game_id}/events", params={"after": after, "limit": 500}, headers=headers
        ).json()
        log += page["events"]
        if not page["has_more"]:
            return log
        after = page["next_after"]


def test_fbi_agents_stay_out_of_the_others_event_log_but_are_in_the_replay(
    client: Any, tmp_path: Path
) -> None:
    game_id, tokens = _finished_game(client)
    replay = client.get(f"/v1/games/{game_id}/replay").json()
    selected = [r["event"] for r in replay["events"] if r["event"]["type"] == "fbi.agents_selected"]
    assert {e["seat"] for e in selected} == {0, 1}
    assert all(e["first"] is not None and e["second"] is not None for e in selected)
    verify(msgspec.convert(replay, ReplayDocument))
    for viewer, token in [(0, tokens[0]), (1, tokens[1]), (None, None)]:
        seen = [
            r["event"]
            for r in _log(client, game_id, token)
            if r["event"]["type"] == "fbi.agents_selected"
        ]
        assert [e["seat"] for e in seen] == [e["seat"] for e in selected]
        for event, full in zip(seen, selected, strict=True):
            shown = event["seat"] == viewer
            assert event == (full if shown else {**full, "first": None, "second": None})


def _tampered(replay: dict[str, Any], how: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(replay))
    events = doc["events"]
    if how == "seed":
        doc["seed"] = ("0" if doc["seed"][0] != "0" else "1") + doc["seed"][1:]
    elif how == "commitment":
        doc["seed_commitment"] = "0" * 64
    elif how == "deal":
        # Reorder the first dealt list (a shuffle result) of the opening events.
        for record in events[1:]:
            lists = [k for k, v in record["event"].items() if isinstance(v, list) and len(v) > 1]
            if lists:
                dealt = record["event"][lists[0]]
                record["event"][lists[0]] = dealt[1:] + dealt[:1]
                break
    elif how == "move":
        moved = next(e for e in events if e["act"] and e["act"]["kind"] == "move")
        moved["act"]["seat"] = 1 - moved["act"]["seat"]
    elif how == "event":
        later = events[len(events) // 2]
        later["event"]["seat"] = (later["event"].get("seat", 0) + 1) % 2
    elif how == "reveal":
        revealed = next(e for e in events if e["event"]["type"] == "seal.revealed")
        revealed["act"]["salt"] = "ab" * 16
        revealed["event"]["salt"] = "ab" * 16
    elif how == "agents":
        chosen = next(e for e in events if e["event"]["type"] == "fbi.agents_selected")
        chosen["event"]["first"] = "black" if chosen["event"]["first"] != "black" else "red"
    elif how == "dropped":
        del events[len(events) // 2]
    elif how == "result":
        result = next(e for e in events if e["event"]["type"] == "game.result_recorded")
        result["event"]["scores"] = [s + 1 for s in result["event"]["scores"]]
    return doc


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("seed", "seed does not hash"),
        ("commitment", "seed does not hash"),
        ("deal", "opening deal"),
        ("move", "the act is refused"),
        ("event", "version"),
        ("reveal", "version"),
        ("agents", "the events differ"),
        ("dropped", "without gaps"),
        ("result", "the events differ"),
    ],
)
def test_any_tampering_makes_verification_fail_with_a_clear_message(
    client: Any, worker: subprocess.Popen[bytes], how: str, message: str
) -> None:
    game_id, _ = _finished_game(client)

    def recorded() -> bool:
        return any(
            e["event"]["type"] == "game.result_recorded"
            for e in client.get(f"/v1/games/{game_id}/replay").json()["events"]
        )

    from tests.helpers import wait_for

    wait_for(recorded, timeout=60)
    replay = client.get(f"/v1/games/{game_id}/replay").json()
    verify(msgspec.convert(replay, ReplayDocument))  # the untouched replay verifies
    with pytest.raises(VerificationError, match=message):
        verify(msgspec.convert(_tampered(replay, how), ReplayDocument))


def test_private_games_hide_from_spectators_but_not_seats_or_creator(client: Any) -> None:
    response = client.post(
        "/v1/games",
        json={"game": "fbi", "seats": HUMANS2, "private": True},
        headers=auth(API_KEY),
    )
    assert response.status_code == 201, response.text
    created = response.json()
    game_id = created["id"]
    for path in ("", "/events", "/replay"):
        denied = client.get(f"/v1/games/{game_id}{path}")
        assert denied.status_code == 403, path
        assert denied.json()["type"] == "urn:stakeout:problem:forbidden"
    assert (
        client.get(f"/v1/games/{game_id}", headers=auth(created["seats"][0]["token"])).status_code
        == 200
    )
    assert client.get(f"/v1/games/{game_id}", headers=auth(API_KEY)).status_code == 200


def test_the_json_lines_feeds_are_served_as_ndjson(server_url: str) -> None:
    """A game's event and view feeds and the account feed, asked for as JSON lines, say so
    in their Content-Type (they went out labelled text/event-stream)."""
    with httpx.Client(base_url=server_url, timeout=30) as client:
        game_id = create(client, "fbi", HUMANS2)["id"]
        ndjson = {**auth(API_KEY), "Accept": "application/x-ndjson"}
        for path in (
            f"/v1/games/{game_id}/stream",
            f"/v1/games/{game_id}/stream?feed=view",
            "/v1/feed",
        ):
            with client.stream("GET", path, headers=ndjson) as response:
                assert response.status_code == 200, path
                assert response.headers["content-type"] == "application/x-ndjson", path
                first = json.loads(next(response.iter_lines()))
                assert "kind" in first, path
            with client.stream("GET", path, headers=auth(API_KEY)) as response:
                assert response.headers["content-type"].startswith("text/event-stream"), path
