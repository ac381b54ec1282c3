"""A two-person game set up by invite and played from the view feed over real HTTP: one
seat reads NDJSON with its Authorization header, the other SSE opened with a single-use
stream ticket (as a browser's EventSource would); each acts on the views it is sent,
never GETting the game. Tickets are single use; ``?token=`` is refused."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import httpx

from tests.helpers import API_KEY, act, auth


def _sse(response: httpx.Response) -> Iterator[tuple[str, dict[str, Any]]]:
    current: dict[str, str] = {}
    for line in response.iter_lines():
        if line == "":
            if "data" in current:
                yield current.get("event", "message"), json.loads(current["data"])
            current = {}
        elif not line.startswith(":"):
            key, _, value = line.partition(": ")
            current[key] = value


def _ndjson(response: httpx.Response) -> Iterator[tuple[str, dict[str, Any]]]:
    for line in response.iter_lines():
        if line:
            message = json.loads(line)
            if message["kind"] == "view":
                yield "view", message["view"]
            elif message["kind"] != "ping":
                yield message["kind"], message


def _player(
    base: str, game_id: str, token: str, seat: int, ndjson: bool, log: list[Any], seed: int
) -> None:
    """Follow the view feed and act whenever the view says this seat is awaited."""
    rng = random.Random(seed)
    secrets_: dict[int, tuple[dict[str, Any], str]] = {}
    with httpx.Client(base_url=base, timeout=60) as client:
        if ndjson:
            url = f"/v1/games/{game_id}/stream?feed=view"
            headers = {**auth(token), "Accept": "application/x-ndjson"}
        else:
            ticket = client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(token))
            assert ticket.status_code == 201, ticket.text
            url = f"/v1/games/{game_id}/stream?feed=view&ticket={ticket.json()['ticket']}"
            headers = {}
        acted_at = 0
        with client.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200, response.read()
            messages = _ndjson(response) if ndjson else _sse(response)
            for kind, body in messages:
                log.append((kind, body))
                if kind != "view":
                    continue
                assert body["you"] == seat
                if body["status"] in ("finished", "aborted", "abandoned"):
                    return
                mine = [a for a in body["awaiting"] if a["seat"] == seat]
                if not mine or body["version"] < acted_at:
                    continue
                move = rng.choice(body["legal"]) if body["legal"] else {}
                answer = act(client, game_id, token, seat, mine[0], move, secrets_)
                assert answer.status_code == 200, answer.text
                acted_at = answer.json()["version"]


def test_invite_game_played_from_the_view_feed(server_url: str) -> None:
    with httpx.Client(base_url=server_url, timeout=30) as client:
        created = client.post(
            "/v1/games",
            json={
                "game": "bonnie_clyde",
                "seats": [{"type": "human", "name": "Ann"}, {"type": "open"}],
                "public": True,
            },
            headers=auth(API_KEY),
        ).json()
        game_id = created["id"]
        host = created["seats"][0]["token"]
        code = created["seats"][1]["invite"]["code"]
        claimed = client.post(
            f"/v1/invites/{code}", json={"name": "Bo", "external_id": "u2"}, headers=auth(API_KEY)
        )
        assert claimed.status_code == 201, claimed.text
        guest = claimed.json()["token"]
        logs: list[list[Any]] = [[], []]
        players = [
            threading.Thread(target=_player, args=(server_url, game_id, host, 0, True, logs[0], 1)),
            threading.Thread(
                target=_player, args=(server_url, game_id, guest, 1, False, logs[1], 2)
            ),
        ]
        for player in players:
            player.start()
        for player in players:
            player.join(timeout=240)
            assert not player.is_alive(), "the game did not finish from the feeds"
        for log in logs:
            assert log[0][0] == "view", log[0]  # the first message is the whole view
            assert log[0][1]["seats"][1]["name"] == "Bo"
            kinds = [kind for kind, _ in log]
            # After each batch of events: an events message, then the view.
            assert all(kinds[i + 1] == "view" for i, k in enumerate(kinds[:-1]) if k == "events")
            assert log[-1][1]["status"] == "finished"
        # What each seat saw is redacted for it: the other's token never appears.
        assert guest not in json.dumps(logs[0])
        assert host not in json.dumps(logs[1])
        # After the end the view feed stays open until a rematch: it sends the view with
        # `rematch`, then closes by itself.
        ticket = client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(guest)).json()
        url = f"/v1/games/{game_id}/stream?feed=view&ticket={ticket['ticket']}"
        made: list[Any] = []
        with client.stream("GET", url) as response:
            seen = []
            for kind, body in _sse(response):
                seen.append((kind, body))
                if kind == "view" and not made:
                    assert body["rematch"] is None
                    made.append(
                        client.post(f"/v1/games/{game_id}/rematch", headers=auth(host)).json()
                    )
        assert seen[-1][0] == "view"
        assert seen[-1][1]["rematch"] == {"game_id": made[0]["game_id"]}
        mine = client.post(f"/v1/games/{game_id}/rematch", headers=auth(guest)).json()
        assert mine["game_id"] == made[0]["game_id"]
        assert (made[0]["seat"], mine["seat"]) == (1, 0)
        new_view = client.get(f"/v1/games/{mine['game_id']}", headers=auth(mine["token"])).json()
        assert new_view["seats"][0]["name"] == "Bo"
        assert new_view["seats"][1]["name"] == "Ann"


def test_tickets_are_single_use_and_tokens_stay_out_of_urls(server_url: str) -> None:
    with httpx.Client(base_url=server_url, timeout=30) as client:
        created = client.post(
            "/v1/games",
            json={"game": "bonnie_clyde", "seats": [{"type": "human"}, {"type": "human"}]},
            headers=auth(API_KEY),
        ).json()
        game_id, token = created["id"], created["seats"][0]["token"]
        refused = client.get(f"/v1/games/{game_id}/stream", params={"token": token})
        assert refused.status_code == 400
        assert refused.json()["type"] == "urn:stakeout:problem:token-in-url"
        ticket = client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(token)).json()
        assert ticket["expires_at_ms"] > 0
        url = f"/v1/games/{game_id}/stream"
        with client.stream("GET", url, params={"ticket": ticket["ticket"], "feed": "view"}) as r:
            assert r.status_code == 200
            kind, view = next(_sse(r))
            assert kind == "view"
            assert view["you"] == 0  # the ticket stands for the seat
            assert view["legal"] or view["awaiting"]
        again = client.get(url, params={"ticket": ticket["ticket"]})
        assert again.status_code == 401
        assert again.json()["type"] == "urn:stakeout:problem:invalid-ticket"
        other = client.post(
            "/v1/games",
            json={"game": "bonnie_clyde", "seats": [{"type": "human"}, {"type": "human"}]},
            headers=auth(API_KEY),
        ).json()
        elsewhere = client.post(f"/v1/games/{game_id}/stream-tickets").json()["ticket"]
        wrong = client.get(f"/v1/games/{other['id']}/stream", params={"ticket": elsewhere})
        assert wrong.status_code == 401
        assert wrong.json()["type"] == "urn:stakeout:problem:invalid-ticket"
