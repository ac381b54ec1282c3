"""Strict as documented: unknown fields are a 400, a body that is not JSON a 415, a 405
names the allowed methods, every unknown path is a problem, and If-None-Match with the
current version is a 304 without a body."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers import API_KEY, auth, create, view

HUMANS2 = [{"type": "human"}, {"type": "human"}]


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["type"] == f"urn:stakeout:problem:{code}", body
    return body


def _game(client: Any) -> tuple[str, list[str]]:
    created = create(client, "fbi", HUMANS2)
    return created["id"], [s["token"] for s in created["seats"]]


def test_every_body_needs_a_json_content_type(client: Any) -> None:
    game_id, tokens = _game(client)
    actor = view(client, game_id)["awaiting"][0]["seat"]
    move = view(client, game_id, tokens[actor])["legal"][0]
    cases = [
        ("/v1/games", auth(API_KEY), b'{"game":"fbi","seats":[{"type":"human"},{"type":"human"}]}'),
        (f"/v1/games/{game_id}/moves", auth(tokens[actor]), json.dumps(move).encode()),
        (
            f"/v1/games/{game_id}/commitments",
            auth(tokens[0]),
            b'{"commitment":"' + b"0" * 64 + b'"}',
        ),
        (
            "/v1/webhooks",
            auth(API_KEY),
            b'{"url":"https://example.org/h","events":["game.finished"]}',
        ),
    ]
    before = view(client, game_id)["version"]
    for path, headers, body in cases:
        for content_type in (None, "text/plain", "application/x-www-form-urlencoded"):
            sent = dict(headers)
            if content_type:
                sent["Content-Type"] = content_type
            response = client.post(path, content=body, headers=sent)
            _problem(response, 415, "unsupported-media-type")
    assert view(client, game_id)["version"] == before
    # JSON under a +json media type, with parameters, is JSON.
    listed = client.post(
        "/v1/games",
        content=cases[0][2],
        headers={**auth(API_KEY), "Content-Type": "application/json; charset=utf-8"},
    )
    assert listed.status_code == 201, listed.text


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/games", {"game": "fbi", "seats": HUMANS2, "colour": "red"}),
        (
            "/v1/games",
            {"game": "fbi", "seats": [{"type": "human", "nick": "x"}, {"type": "human"}]},
        ),
        ("/v1/webhooks", {"url": "https://example.org/h", "events": ["game.finished"], "x": 1}),
    ],
)
def test_unknown_fields_in_a_body_are_refused(client: Any, path: str, body: Any) -> None:
    _problem(client.post(path, json=body, headers=auth(API_KEY)), 400, "invalid-request")


def test_unknown_fields_in_commitments_and_reveals_are_refused(client: Any) -> None:
    game_id, tokens = _game(client)
    before = view(client, game_id)["version"]
    commit = {"commitment": "0" * 64, "nonce": 1}
    _problem(
        client.post(f"/v1/games/{game_id}/commitments", json=commit, headers=auth(tokens[0])),
        400,
        "invalid-request",
    )
    reveal = {"move": {"type": "x"}, "salt": "ab" * 16, "extra": True}
    _problem(
        client.post(f"/v1/games/{game_id}/reveals", json=reveal, headers=auth(tokens[0])),
        400,
        "invalid-request",
    )
    assert view(client, game_id)["version"] == before


def test_a_405_and_an_options_answer_list_the_allowed_methods(client: Any) -> None:
    game_id, _ = _game(client)
    for method, path, allowed in [
        ("DELETE", "/v1/games", {"GET", "POST", "OPTIONS"}),
        ("PUT", f"/v1/games/{game_id}", {"GET", "OPTIONS"}),
        ("GET", f"/v1/games/{game_id}/moves", {"POST", "OPTIONS"}),
        ("PATCH", "/v1/webhooks", {"GET", "POST", "OPTIONS"}),
    ]:
        response = client.request(method, path, headers=auth(API_KEY))
        _problem(response, 405, "method-not-allowed")
        assert {m.strip() for m in response.headers["allow"].split(",")} == allowed, path
        options = client.options(path)
        assert options.status_code == 204
        assert {m.strip() for m in options.headers["allow"].split(",")} == allowed, path


@pytest.mark.parametrize(
    "path",
    [
        "/schema/swagger",
        "/schema/redoc",
        "/schema/elements",
        "/schema/x/y",
        "/nope",
        "/v1/nope",
        "/v1/games/abc/nope",
    ],
)
def test_every_unknown_path_is_a_problem(client: Any, path: str) -> None:
    _problem(client.get(path), 404, "not-found")


def test_if_none_match_with_the_current_version_answers_304(client: Any) -> None:
    game_id, tokens = _game(client)
    seat = auth(tokens[0])
    first = client.get(f"/v1/games/{game_id}", headers=seat)
    tag = first.headers["etag"]
    assert tag == f'"{first.json()["version"]}"'
    assert "Authorization" in first.headers["vary"]
    for given in (tag, f"W/{tag}", f'"0", {tag}', "*"):
        again = client.get(f"/v1/games/{game_id}", headers={**seat, "If-None-Match": given})
        assert again.status_code == 304, given
        assert again.content == b""
        assert again.headers["etag"] == tag
    stale = client.get(f"/v1/games/{game_id}", headers={**seat, "If-None-Match": '"0"'})
    assert stale.status_code == 200
    page = client.get(f"/v1/games/{game_id}/events", headers=seat)
    assert page.headers["etag"] == tag
    cached = client.get(f"/v1/games/{game_id}/events", headers={**seat, "If-None-Match": tag})
    assert cached.status_code == 304
    assert cached.content == b""
    # Once the game moves on, the same tag gets the new view and page.
    actor = view(client, game_id)["awaiting"][0]["seat"]
    move = view(client, game_id, tokens[actor])["legal"][0]
    posted = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[actor]))
    assert posted.status_code == 200, posted.text
    fresh = client.get(f"/v1/games/{game_id}", headers={**seat, "If-None-Match": tag})
    assert fresh.status_code == 200
    assert fresh.headers["etag"] != tag
    newer = client.get(f"/v1/games/{game_id}/events", headers={**seat, "If-None-Match": tag})
    assert newer.status_code == 200
    assert newer.json()["events"]


@pytest.mark.parametrize(
    "path",
    [
        "/v1/games/{game_id}/stream?after=null",
        "/v1/games/{game_id}/stream?after=null&after=null",
        "/v1/games?status=null",
        "/v1/games?game=null",
        "/v1/lobby?game=null",
    ],
)
def test_the_text_null_is_no_value_of_an_optional_integer_or_enum(client: Any, path: str) -> None:
    """The contract types these parameters as an integer or an enum; the lax decoding of
    parameters would read `null` as leaving them out (and stream the whole log)."""
    game_id, _ = _game(client)
    # Ended, so that a stream wrongly opened closes after its log instead of staying open.
    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)).status_code == 200
    response = client.get(path.format(game_id=game_id), headers=auth(API_KEY))
    body = _problem(response, 400, "invalid-request")
    assert "null" in body["detail"], body


def test_optional_parameters_still_take_their_values(client: Any) -> None:
    game_id, _ = _game(client)
    listed = client.get("/v1/games?status=active&game=fbi", headers=auth(API_KEY))
    assert listed.status_code == 200, listed.text
    assert [g["id"] for g in listed.json()["games"]] == [game_id]
    # A string parameter may be the text `null` (here: a ticket nobody issued).
    refused = client.get(f"/v1/games/{game_id}/stream?ticket=null")
    assert refused.status_code in (401, 403, 404), refused.text


def test_a_stream_after_a_version_below_the_first_starts_at_the_beginning(client: Any) -> None:
    """The contract bounds `after` only from above: every version is after -5, so the whole
    log comes, as it does for `after=0`."""
    game_id, _ = _game(client)
    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)).status_code == 200
    feeds = [
        client.get(f"/v1/games/{game_id}/stream?after={after}", headers=auth(API_KEY))
        for after in (-5, 0)
    ]
    for feed in feeds:
        assert feed.status_code == 200, feed.text
        assert feed.text.splitlines()[0] == "id: 1", feed.text[:200]
    assert feeds[0].text == feeds[1].text
