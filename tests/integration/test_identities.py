"""Who a seat's player is (issue 35), over real HTTP against a `stakeout serve` process:
only the game's API key binds an external_id (an invite code alone may set a name), a seat
its creator bound keeps its identity whoever claims it, one rule for every external_id and
name the API takes, an encoded `/` names no resource, and `around=` takes no cursor."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.helpers import API_KEY, auth, wait_for
from tests.integration.test_players_api import OTHER_KEY, api, two_keys

__all__ = ["api", "two_keys"]  # fixtures: the app with a second API key


@pytest.fixture
def http(server_url: str, clean_redis: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server_url, timeout=30) as client:
        yield client


def _problem(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == f"urn:stakeout:problem:{code}", response.text


def _create(http: httpx.Client, seats: list[dict[str, Any]], game: str = "fbi") -> Any:
    response = http.post("/v1/games", json={"game": game, "seats": seats}, headers=auth(API_KEY))
    assert response.status_code == 201, response.text
    return response.json()


def _seats(http: httpx.Client, game_id: str) -> list[dict[str, Any]]:
    response = http.get(f"/v1/games/{game_id}")
    assert response.status_code == 200, response.text
    return list(response.json()["seats"])


def _version(http: httpx.Client, game_id: str) -> int:
    return int(http.get(f"/v1/games/{game_id}").json()["version"])


def test_an_invite_code_alone_sets_a_name_never_an_identity(
    http: httpx.Client, dispatcher: None
) -> None:
    created = _create(
        http,
        [
            {"type": "human", "name": "Ann", "external_id": "u-ann"},
            {"type": "open", "external_id": "u-bob"},  # bound by the creator
            {"type": "open"},  # not bound
        ],
    )
    game_id = created["id"]
    bound, free = (created["seats"][i]["invite"]["code"] for i in (1, 2))
    before = _version(http, game_id)

    # The code alone cannot choose who the seat is: not on a bound seat, not on a free one.
    for code in (bound, free):
        refused = http.post(f"/v1/invites/{code}", json={"external_id": "u-victim"})
        _problem(refused, 422, "identity-needs-api-key")
    # Nor can the API key put another player on a seat it bound.
    _problem(
        http.post(f"/v1/invites/{bound}", json={"external_id": "u-carl"}, headers=auth(API_KEY)),
        409,
        "seat-bound",
    )
    # Refusals change nothing.
    assert _version(http, game_id) == before
    assert [s["open"] for s in _seats(http, game_id)] == [False, True, True]

    # A claim by code with a name keeps the creator's identity on the bound seat.
    claimed = http.post(f"/v1/invites/{bound}", json={"name": "Robert"})
    assert claimed.status_code == 201, claimed.text
    seat = _seats(http, game_id)[1]
    assert (seat["type"], seat["name"], seat["external_id"]) == ("human", "Robert", "u-bob")
    # The API key binds one of its users to the free seat by claiming it.
    by_key = http.post(
        f"/v1/invites/{free}", json={"name": "Cy", "external_id": "u-cy"}, headers=auth(API_KEY)
    )
    assert by_key.status_code == 201, by_key.text
    seats = _seats(http, game_id)
    assert [s["external_id"] for s in seats] == ["u-ann", "u-bob", "u-cy"]

    # u-bob's history holds the game (once the creation's follow-up ran), the victim's not.
    def history(player: str) -> list[str]:
        listed = http.get(f"/v1/players/{player}/games", headers=auth(API_KEY))
        assert listed.status_code == 200, listed.text
        return [g["id"] for g in listed.json()["games"]]

    wait_for(lambda: history("u-bob") == [game_id] and history("u-cy") == [game_id])
    assert history("u-victim") == []


def test_a_bound_seat_keeps_its_identity_when_its_claimer_leaves(http: httpx.Client) -> None:
    created = _create(
        http,
        [
            {"type": "human"},
            {"type": "open", "name": "guest", "external_id": "u-bob"},
            {"type": "open"},  # so that the game waits after the claim: it may be left
        ],
    )
    game_id, code = created["id"], created["seats"][1]["invite"]["code"]
    assert _seats(http, game_id)[1]["external_id"] == "u-bob"
    token = http.post(f"/v1/invites/{code}", json={"name": "Bo"}).json()["token"]
    assert http.post(f"/v1/games/{game_id}/leave", headers=auth(token)).status_code == 200
    seat = _seats(http, game_id)[1]
    assert (seat["open"], seat["external_id"]) == (True, "u-bob")
    filled = http.post(f"/v1/games/{game_id}/fill", json={"level": "random"}, headers=auth(API_KEY))
    assert filled.status_code == 200, filled.text
    assert _seats(http, game_id)[1]["external_id"] == "u-bob"


# Each a text the identity rule refuses as an external_id; names: all but the first two.
BAD_IDS = ["", "x/games", "nul\x00", "new\nline", "bel\x07", "rtl\u202egnp.exe", "del\x7f"]


def test_one_rule_for_every_external_id_and_name(http: httpx.Client) -> None:
    key = auth(API_KEY)
    for bad in BAD_IDS:
        seats = [{"type": "human", "external_id": bad}, {"type": "bot", "level": "random"}]
        made = http.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=key)
        _problem(made, 422, "invalid-external-id")
        open_seat = [{"type": "human"}, {"type": "open", "external_id": bad}]
        made = http.post("/v1/games", json={"game": "fbi", "seats": open_seat}, headers=key)
        _problem(made, 422, "invalid-external-id")
        ticket = {"game": "fbi", "player": {"external_id": bad}}
        made = http.post("/v1/matchmaking/tickets", json=ticket, headers=key)
        if bad:  # the contract's own bound (1 character at least) answers 400 first
            _problem(made, 422, "invalid-external-id")
        else:
            assert made.status_code == 400, made.text
        listed = http.get("/v1/games", params={"external_id": bad}, headers=key)
        around = http.get("/v1/leaderboards/fbi", params={"around": bad}, headers=key)
        # Bounds the contract states (1 character at least) answer 400 before the rule.
        for response in (listed, around):
            assert response.status_code == (400 if bad == "" else 422), response.text
        if bad and "/" not in bad:
            quoted = quote(bad, safe="")
            for path in (f"/v1/players/{quoted}", f"/v1/players/{quoted}/games"):
                _problem(http.get(path, headers=key), 422, "invalid-external-id")
    free = _create(http, [{"type": "human"}, {"type": "open"}])["seats"][1]["invite"]["code"]
    for bad in BAD_IDS:
        claim = http.post(f"/v1/invites/{free}", json={"external_id": bad}, headers=key)
        _problem(claim, 422, "invalid-external-id")
    for bad in BAD_IDS[2:]:
        seats = [{"type": "human", "name": bad}, {"type": "bot", "level": "random", "name": "B"}]
        made = http.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=key)
        _problem(made, 422, "invalid-name")
        _problem(http.post(f"/v1/invites/{free}", json={"name": bad}), 422, "invalid-name")
        ticket = {"game": "fbi", "player": {"external_id": "u-ok", "name": bad}}
        made = http.post("/v1/matchmaking/tickets", json=ticket, headers=key)
        _problem(made, 422, "invalid-name")
    # None of it made a game or a claim.
    (only,) = http.get("/v1/games", headers=key).json()["games"]
    assert [s["open"] for s in only["seats"]] == [False, True]
    # A name may hold a '/', and ids what the rule allows (non-ASCII included).
    fine = [{"type": "human", "name": "A/B", "external_id": "über-ü 1"}, {"type": "open"}]
    assert http.post("/v1/games", json={"game": "fbi", "seats": fine}, headers=key).is_success


def test_an_encoded_slash_names_no_resource(http: httpx.Client, dispatcher: None) -> None:
    seats = [{"type": "human", "external_id": "x"}, {"type": "bot", "level": "random"}]
    game_id = _create(http, seats)["id"]

    def history() -> list[str]:  # x's history, asked for as itself
        mine = http.get("/v1/players/x/games", headers=auth(API_KEY))
        return [g["id"] for g in mine.json()["games"]]

    wait_for(lambda: history() == [game_id])
    # "x/games" is no player (no id holds a '/'), and never an alias of x's history.
    for raw in ("/v1/players/x%2Fgames", "/v1/players/x%2fgames", "/v1/players/x%2F"):
        _problem(http.get(httpx.URL(raw), headers=auth(API_KEY)), 404, "not-found")


def test_around_with_a_cursor_is_refused(http: httpx.Client) -> None:
    key = auth(API_KEY)
    both = http.get("/v1/leaderboards/fbi", params={"around": "u-ann", "cursor": "5"}, headers=key)
    _problem(both, 400, "invalid-request")
    assert "cursor" in both.json()["detail"]
    # Each alone is answered.
    assert http.get("/v1/leaderboards/fbi", params={"cursor": "5"}, headers=key).is_success
    _problem(
        http.get("/v1/leaderboards/fbi", params={"around": "u-ann"}, headers=key),
        404,
        "unknown-player",
    )


def test_another_api_key_may_not_bind_a_seat_of_this_keys_game(api: Any) -> None:
    """(The app with two API keys, on the real Valkey.)"""
    created = api.post(
        "/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}, {"type": "open"}]},
        headers=auth(API_KEY),
    ).json()
    code = created["seats"][1]["invite"]["code"]
    theirs = api.post(f"/v1/invites/{code}", json={"external_id": "u-x"}, headers=auth(OTHER_KEY))
    _problem(theirs, 403, "forbidden")
    assert api.get(f"/v1/games/{created['id']}").json()["seats"][1]["open"] is True
    mine = api.post(f"/v1/invites/{code}", json={"external_id": "u-x"}, headers=auth(API_KEY))
    assert mine.status_code == 201, mine.text
