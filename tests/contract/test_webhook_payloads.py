"""The webhook payloads are in the contract (OpenAPI 3.1 `webhooks`): one schema per kind,
with the signature header, and what the workers send fits them."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from jsonschema import Draft202012Validator

from domain.match import SeatSpec
from service.matchmaking.matcher import match_found
from service.matchmaking.tickets import MatchRecord
from service.notify.webhooks import EVENT_KINDS, Notification, NotifiedSeat, notifications

CONTRACT = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "v1.json").read_text())
SCHEMAS = CONTRACT["components"]["schemas"]


def _schema_for(kind: str) -> dict[str, object]:
    body = CONTRACT["webhooks"][kind]["post"]["requestBody"]["content"]["application/json"]
    name = body["schema"]["$ref"].rsplit("/", 1)[1]
    return dict(SCHEMAS[name])


def test_every_notification_kind_is_in_the_contract_with_its_signature_header() -> None:
    assert set(CONTRACT["webhooks"]) == set(EVENT_KINDS)
    for kind in EVENT_KINDS:
        headers = {p["name"] for p in CONTRACT["webhooks"][kind]["post"]["parameters"]}
        assert "Stakeout-Signature" in headers


def test_what_the_workers_send_fits_the_contract() -> None:
    sent = [
        *notifications("a" * 24, 7, 1000, [(1, "commit", "t1.agents", None)], None, None),
        *notifications("a" * 24, 90, 2000, [], ([3, 5], [1]), ([3, 5], [1])),
        *notifications("a" * 24, 12, 3000, [], None, None, ended="aborted"),
        *notifications("b" * 24, 40, 4000, [], None, None, ended="abandoned"),
        Notification(
            "c-started",
            "game.started",
            "c" * 24,
            3,
            10,
            seats=[NotifiedSeat(0, "human", "Ann", "u1")],
        ),
        Notification("c-aborted", "game.aborted", "c" * 24, 9, 20),
        Notification("c-rematch", "rematch.created", "c" * 24, 10, 30, rematch_game_id="d" * 24),
        *match_found(
            MatchRecord(
                "owner",
                "fbi",
                {},
                [SeatSpec("bot", "greedy"), SeatSpec("human", None, "Ann", "u1")],
                [None, "h" * 64],
                [("e" * 24, 1)],
                50,
            ),
            "f" * 24,
            60,
        ),
    ]
    assert {n.kind for n in sent} == set(EVENT_KINDS)
    for note in sent:
        body = json.loads(msgspec.json.encode(note))
        errors = list(Draft202012Validator(_schema_for(note.kind)).iter_errors(body))
        assert errors == [], (note.kind, [e.message for e in errors])
    # A payload of the wrong kind does not fit.
    awaited = json.loads(msgspec.json.encode(sent[0]))
    assert list(Draft202012Validator(_schema_for("result.recorded")).iter_errors(awaited))
