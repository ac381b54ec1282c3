"""OpenAPI 3.1 ``webhooks``: one schema and one operation per notification kind."""

from __future__ import annotations

import copy
from typing import Any

# The fields every notification carries (`service.notify.webhooks.Notification`).
_NOTIFICATION_FIELDS: dict[str, Any] = {
    "id": {"type": "string", "description": "The notification's id, the same on retries."},
    "game_id": {"type": "string", "description": "The game's id (24 hex digits)."},
    "version": {
        "type": "integer",
        "minimum": 1,
        "description": "The game's version when this happened.",
    },
    "at_ms": {
        "type": "integer",
        "description": "When it happened (epoch milliseconds, server clock).",
    },
    "seats": {
        "type": ["array", "null"],
        "description": "Who sits where (never a token).",
        "items": {
            "type": "object",
            "description": "A seat: its number, kind, name and external id.",
            "properties": {
                "seat": {"type": "integer", "description": "The seat (0-based)."},
                "type": {"type": "string", "description": "human, bot or open."},
                "name": {
                    "type": ["string", "null"],
                    "description": "The seat's display name, or null.",
                },
                "external_id": {
                    "type": ["string", "null"],
                    "description": "The client backend's id of the seat's player, or null.",
                },
            },
        },
    },
    "rematch_game_id": {
        "type": ["string", "null"],
        "description": "rematch.created: the new game's id; null for other kinds.",
    },
    "ticket_id": {
        "type": ["string", "null"],
        "description": "match.found: the matchmaking ticket that was seated; null for other kinds.",
    },
}
_SEAT_LIST = {"type": "array", "items": {"type": "integer"}}
# Each kind's schema name, kind, description and own fields.
_NOTIFICATION_KINDS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "SeatAwaitedNotification": (
        "seat.awaited",
        "A human seat must act (a new turn, step or sealed action).",
        {
            "seat": {"type": "integer", "description": "The seat (0-based)."},
            "action": {
                "type": "string",
                "enum": ["move", "commit", "reveal"],
                "description": "What it must do.",
            },
            "step": {"type": "string", "description": "The step id (see AwaitingAction)."},
            "deadline": {
                "type": ["integer", "null"],
                "description": "When a bot acts for it (epoch ms); null without deadlines.",
            },
            "clock_remaining_ms": {
                "type": ["integer", "null"],
                "description": "In a game with a clock: the seat's bank when its turn began "
                "(ms), running from at_ms until deadline; null without a clock.",
            },
            "presence": {
                "type": ["object", "null"],
                "description": "Whether the seat's player is at the table as the turn "
                "begins (as the view's seats[i].presence): push a phone notification only "
                "to one who is away. Null when the server's presence is off.",
                "properties": {
                    "status": {
                        "type": "string",
                        "enum": ["online", "away", "never"],
                        "description": "online, away or never (not seen since the game began).",
                    },
                    "last_seen_ms": {
                        "type": ["integer", "null"],
                        "description": "When the seat was last seen (epoch ms); null: never.",
                    },
                },
            },
        },
    ),
    "GameFinishedNotification": (
        "game.finished",
        "The game ended: played to the end (scores and winners), or abandoned or "
        "aborted (no scores).",
        {
            "status": {
                "type": "string",
                "enum": ["finished", "abandoned", "aborted"],
                "description": "finished: played to the end; abandoned: nobody acted for "
                "STAKEOUT_ABANDON_SECONDS; aborted: ended by its creator.",
            },
            "scores": {
                **_SEAT_LIST,
                "type": ["array", "null"],
                "description": "Final scores by seat; null when abandoned or aborted.",
            },
            "winners": {
                **_SEAT_LIST,
                "type": ["array", "null"],
                "description": "The winning seats; null when abandoned or aborted.",
            },
        },
    ),
    "GameStartedNotification": (
        "game.started",
        "The game started: no seat is open any more (at creation for a game without open seats).",
        {},
    ),
    "GameAbortedNotification": (
        "game.aborted",
        "The game's creator aborted it (webhooks registered for game.finished also get "
        "that notification with status aborted).",
        {},
    ),
    "MatchFoundNotification": (
        "match.found",
        "A matchmaking ticket (ticket_id) was matched: its player sits at `seat` of the new "
        "game `game_id`. The seat token is not here: the ticket's holder reads it from "
        "GET /v1/matchmaking/tickets/{ticket_id} with the ticket's secret.",
        {"seat": {"type": "integer", "description": "The ticket's seat (0-based)."}},
    ),
    "RematchCreatedNotification": (
        "rematch.created",
        "The next game of this table was created (rematch_game_id).",
        {},
    ),
    "ResultRecordedNotification": (
        "result.recorded",
        "The scoring job recorded the final result (once per game).",
        {
            "scores": {**_SEAT_LIST, "description": "Final scores by seat."},
            "winners": {**_SEAT_LIST, "description": "The winning seats."},
        },
    ),
}


def _notification_schemas() -> dict[str, dict[str, Any]]:
    """One schema per webhook notification kind (the JSON body a delivery POSTs). Every
    delivery carries all the fields of `service.notify.webhooks.Notification`; those a kind does
    not use are null."""
    # Copies: the document's later passes edit schemas in place.
    return {
        name: _notification_schema(name, kind, text, copy.deepcopy(own))
        for name, (kind, text, own) in _NOTIFICATION_KINDS.items()
    }


def _notification_schema(name: str, kind: str, text: str, own: dict[str, Any]) -> dict[str, Any]:
    properties = {
        "kind": {
            "type": "string",
            "const": kind,
            "default": kind,
            "description": f"Always `{kind}`.",
        },
        **copy.deepcopy(_NOTIFICATION_FIELDS),
        **own,
    }
    return {
        "type": "object",
        "title": name,
        "description": text + " Fields of other kinds are present and null.",
        "required": sorted(properties),
        "properties": properties,
    }


def webhooks(schemas: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.1 `webhooks`: what a registered webhook receives, signed."""
    headers = [
        {
            "name": "Stakeout-Signature",
            "in": "header",
            "required": True,
            "description": 't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>, '
            "the secret being the one returned at registration. Check it in constant time "
            "and refuse old timestamps (five minutes, say).",
            "schema": {"type": "string", "pattern": "^t=[0-9]+,v1=[0-9a-f]{64}$"},
        },
        {
            "name": "Stakeout-Event",
            "in": "header",
            "required": True,
            "description": "The notification kind.",
            "schema": {"type": "string"},
        },
        {
            "name": "Stakeout-Delivery",
            "in": "header",
            "required": True,
            "description": "The notification's id: the same on every attempt and every "
            "retry, and unique per notification. Deliveries are at least once: a receiver may "
            "get a notification again (a retry after its answer was lost, a worker that "
            "stopped mid-delivery) and should de-duplicate on this id. Notifications may "
            "arrive out of order; `version` orders a game's.",
            "schema": {"type": "string"},
        },
    ]
    out = {}
    for name, schema in _notification_schemas().items():
        schemas[name] = schema
        kind = schema["properties"]["kind"]["const"]
        out[kind] = {
            "post": {
                "operationId": "on" + name.removesuffix("Notification"),
                "summary": f"{kind}: {schema['description'].split('.')[0]}",
                "description": "POSTed by the workers to each webhook registered for this "
                "kind, at least once (de-duplicate on `Stakeout-Delivery`); retried with "
                "backoff until it answers 2xx.",
                "tags": ["webhooks"],
                "parameters": headers,
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}
                    },
                },
                "responses": {"2XX": {"description": "Received; any 2xx ends the retries."}},
            }
        }
    return out
