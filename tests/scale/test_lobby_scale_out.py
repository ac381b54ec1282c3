"""Scale-out for the lobby (issue 16): two API processes on one Redis. A seat claimed by
many clients at once at both processes goes to exactly one; its token, a stream ticket, a
rematch and the account feed work whichever process answers."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.helpers import API_KEY
from tests.processes import Processes, auth, service_env


def _first_view(base: str, game_id: str, ticket: str) -> dict[str, Any]:
    url = f"{base}/v1/games/{game_id}/stream"
    with httpx.stream("GET", url, params={"ticket": ticket, "feed": "view"}, timeout=30) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.startswith("data: "):
                return dict(json.loads(line.removeprefix("data: ")))
    raise AssertionError("the view feed sent nothing")


def test_claim_ticket_rematch_and_feed_across_two_api_processes(
    own_redis: str, processes: Processes
) -> None:
    env = service_env(own_redis)
    bases = [processes.api(env).base, processes.api(env).base]
    processes.worker(env)  # its dispatcher writes the feed's entries
    with httpx.Client(timeout=30) as http:
        assert http.post(f"{bases[1]}/v1/feed/tickets", headers=auth(API_KEY)).status_code == 201
        time.sleep(1.1)  # both processes learn within a second that the feed is read
        created = http.post(
            f"{bases[0]}/v1/games",
            json={"game": "bonnie_clyde", "seats": [{"type": "human"}, {"type": "open"}]},
            headers=auth(API_KEY),
        ).json()
        game_id, host = created["id"], created["seats"][0]["token"]
        code = created["seats"][1]["invite"]["code"]
        for base in bases:  # both warm caches hold the waiting game
            assert http.get(f"{base}/v1/games/{game_id}").json()["status"] == "waiting"

        def claim(i: int) -> httpx.Response:
            return httpx.post(
                f"{bases[i % 2]}/v1/invites/{code}", json={"name": f"p{i}"}, timeout=30
            )

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(claim, range(16)))
        assert [a.status_code for a in answers].count(201) == 1, [a.text for a in answers]
        assert {a.status_code for a in answers} == {201, 409}
        guest = next(a for a in answers if a.status_code == 201).json()["token"]
        for base in bases:
            seen = http.get(f"{base}/v1/games/{game_id}", headers=auth(guest)).json()
            assert seen["you"] == 1
            assert seen["status"] == "active"
        # A ticket from one process opens the feed at the other.
        ticket = http.post(
            f"{bases[0]}/v1/games/{game_id}/stream-tickets", headers=auth(guest)
        ).json()["ticket"]
        assert _first_view(bases[1], game_id, ticket)["you"] == 1
        assert http.post(f"{bases[1]}/v1/games/{game_id}/abort", headers=auth(API_KEY)).is_success

        def rematch(i: int) -> httpx.Response:
            token = (host, guest)[i % 2]
            return httpx.post(
                f"{bases[(i // 2) % 2]}/v1/games/{game_id}/rematch",
                headers=auth(token),
                timeout=30,
            )

        with ThreadPoolExecutor(8) as pool:
            rematches = list(pool.map(rematch, range(8)))
        assert {r.status_code for r in rematches} == {201}, [r.text for r in rematches]
        assert len({r.json()["game_id"] for r in rematches}) == 1
        new_id = rematches[0].json()["game_id"]
        for r in rematches:
            for base in bases:
                seen = http.get(f"{base}/v1/games/{new_id}", headers=auth(r.json()["token"]))
                assert seen.json()["you"] == r.json()["seat"]
        # The account feed, read at either process, has the whole story once.
        wanted = {("game.started", game_id), ("game.aborted", game_id)}
        wanted |= {("rematch.created", game_id), ("game.started", new_id)}
        for base in bases:
            got: list[tuple[str, str]] = []
            with http.stream(
                "GET",
                f"{base}/v1/feed",
                params={"after": "0-0"},
                headers={**auth(API_KEY), "Accept": "application/x-ndjson"},
            ) as response:
                for line in response.iter_lines():
                    note = json.loads(line)
                    if note["kind"] == "ping":
                        break
                    if note["kind"] != "seat.awaited":
                        got.append((note["kind"], note["game_id"]))
            assert sorted(got) == sorted(wanted), got
