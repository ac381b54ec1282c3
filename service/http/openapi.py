"""The committed contract: Litestar's generated schema, completed for client generators.

Litestar leaves a few things out that generators and linters need, so the document is
finished here, in one pure function over the JSON: problem responses on every operation,
discriminators on the tagged unions, ``additionalProperties: false`` on request types that
refuse unknown fields, OpenAPI links from creating a game to playing it, security
schemes, and tag descriptions. `openapi/v1.json` is this function's output.
"""

from __future__ import annotations

import copy
import inspect
import json
import sys
import typing
from typing import Any

import msgspec
from litestar import Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Contact, License, Tag

from domain import registry
from service.http.docs_ui import OfflineSwaggerPlugin
from service.http.problems import CATALOGUE, TYPE_PREFIX

API_VERSION = "1.0.0"

DESCRIPTION = """\
stakeout runs hidden-information card games (FBI, The Feds, Bonnie and Clyde) for
third-party clients. Create a game with an API key, then play each human seat with the seat
token returned at creation. `GET /v1/games/{game_id}` tells a seat what it must do
(`awaiting`) and every move it may make (`legal`); post one of them as is.

Simultaneous secret choices are sealed: when your `awaiting` action is `commit`, post
`hex(SHA-256("sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}"))` with `move` as JSON with
sorted keys and no spaces and `salt` 16+ random bytes in hex; once every seat has
committed, reveal the move and salt.

Every error is `application/problem+json` with a stable `type` (`urn:stakeout:problem:*`).
"""

TAGS = [
    Tag(name="games", description="Create games, read views and event logs, make moves."),
    Tag(name="webhooks", description="Signed notifications to a backend, with delivery logs."),
    Tag(name="rules", description="The games this server runs, with their rules data."),
    Tag(name="health", description="Liveness and readiness probes."),
    Tag(
        name="lobby",
        description="Open seats and invites, leaving, filling with bots, rematches, stream "
        "tickets and the public lobby.",
    ),
    Tag(name="feeds", description="One live feed of all an API key's games."),
    Tag(
        name="matchmaking",
        description="Tickets that find a player a game (with people of its strength, or "
        "bots after a wait), matched on the workers: no connection needs to stay open.",
    ),
    Tag(
        name="players",
        description="An API key's players: ratings per game kind, their games, leaderboards.",
    ),
]


class FinalJsonRenderPlugin(JsonRenderPlugin):
    """Serves the finished document at /schema/openapi.json."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return msgspec.json.encode(finish(openapi_schema))


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="stakeout",
        version=API_VERSION,
        description=DESCRIPTION,
        contact=Contact(name="stakeout maintainers"),
        license=License(name="Proprietary", identifier="LicenseRef-Proprietary"),
        tags=TAGS,
        path="/schema",
        # The docs UI's files are served by the app itself (service/http/docs_ui.py).
        render_plugins=[FinalJsonRenderPlugin(path="/openapi.json"), OfflineSwaggerPlugin()],
        use_handler_docstrings=False,
    )


_LINK_TARGETS = {
    "GetGame": "getGame",
    "ListEvents": "listEvents",
    "PostCommitment": "postCommitment",
    "PostReveal": "postReveal",
    "PostMove": "postMove",
    "GetReplay": "getReplay",
}
# After a claim: the claimer plays (its token is the claim's answer), or leaves.
_CLAIM_LINK_TARGETS = {
    "GetGame": "getGame",
    "PostMove": "postMove",
    "PostCommitment": "postCommitment",
    "LeaveSeat": "leaveSeat",
}


def _problem_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "An RFC 9457 problem. Branch on `type`; `detail` is for people.",
        "required": ["type", "title", "status", "detail"],
        "properties": {
            "type": {
                "type": "string",
                "enum": [TYPE_PREFIX + code for code in CATALOGUE],
                "description": "Stable problem type.",
            },
            "title": {"type": "string", "description": "The type's summary, for people."},
            "status": {
                "type": "integer",
                "minimum": 400,
                "maximum": 599,
                "description": "The HTTP status of the answer.",
            },
            "detail": {
                "type": "string",
                "description": "What went wrong this time, for people (do not parse it).",
            },
            "instance": {"type": "string", "description": "The request it answers, if known."},
            "current_version": {
                "type": "integer",
                "description": "With version-mismatch: the game's current version.",
            },
            "preimage": {
                "type": "string",
                "description": (
                    "With reveal-mismatch: the exact string the server hashed from the "
                    "revealed move and salt (UTF-8, then SHA-256 in lowercase hex), so a "
                    "client can compare it with the string it hashed. It holds the caller's "
                    "own move only."
                ),
            },
        },
    }


def _strict_request_schemas() -> set[str]:
    """Component names of Structs that refuse unknown fields (requests and moves)."""
    names = {"HumanSeat", "BotSeat", "OpenSeat", "Commit", "Reveal", "RegisterWebhook"}
    names |= {"ClaimRequest", "FillRequest", "TicketPlayer", "Clock"}
    for kind in ("Game", "Ticket"):
        names |= {
            f"Create{''.join(p.title() for p in g.name.split('_'))}{kind}" for g in registry.games()
        }
    for game in registry.games():
        # Every move is decoded refusing unknown fields (service/views/schemas.py).
        names |= {command.__name__ for command in game.command_types}
        if game.options_type.__struct_config__.forbid_unknown_fields:
            names.add(game.options_type.__name__)
    return names


def _tag_of(schema: dict[str, Any], field: str) -> str | None:
    prop = schema.get("properties", {}).get(field)
    if not isinstance(prop, dict):
        return None
    if "const" in prop:
        return str(prop["const"])
    enum = prop.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return str(enum[0])
    return None


def _tag_fields(members: list[dict[str, Any]]) -> list[str]:
    """Properties every member has as a single constant (tagged-union candidates)."""
    if not members:
        return []
    common = set(members[0].get("properties", {}))
    for member in members[1:]:
        common &= set(member.get("properties", {}))
    preferred = ["type", "game", "kind", "rules_of"]
    return sorted(common, key=lambda f: (preferred.index(f) if f in preferred else 99, f))


def _add_discriminators(node: Any, components: dict[str, Any]) -> None:
    if isinstance(node, dict):
        options = node.get("oneOf")
        if isinstance(options, list) and options and "discriminator" not in node:
            refs = [o.get("$ref") for o in options if isinstance(o, dict)]
            if all(isinstance(r, str) for r in refs) and len(refs) == len(options):
                names = [str(r).rsplit("/", 1)[1] for r in refs]
                for field in _tag_fields([components.get(n, {}) for n in names]):
                    tags = [_tag_of(components.get(n, {}), field) for n in names]
                    if all(tags) and len(set(tags)) == len(tags):
                        node["discriminator"] = {
                            "propertyName": field,
                            "mapping": {str(t): str(r) for t, r in zip(tags, refs, strict=True)},
                        }
                        break
        for value in node.values():
            _add_discriminators(value, components)
    elif isinstance(node, list):
        for value in node:
            _add_discriminators(value, components)


def _drop_null(param: dict[str, Any]) -> None:
    """An optional header or query parameter is absent, never null: unwrap ``X | None``."""
    schema = param.get("schema", {})
    options = schema.get("oneOf")
    if isinstance(options, list):
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1 and len(kept) < len(options):
            rest = {k: v for k, v in schema.items() if k != "oneOf"}
            param["schema"] = {**kept[0], **rest}


def _struct_classes() -> dict[str, list[type[msgspec.Struct]]]:
    """Every Struct class of the project, by class name (the schemas' titles)."""
    found: dict[str, list[type[msgspec.Struct]]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(("domain.", "service.")) or module is None:
            continue
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, msgspec.Struct)
                and value.__module__ == name
                and value not in found.get(value.__name__, [])
            ):
                found.setdefault(value.__name__, []).append(value)
    # Types made with defstruct (creation bodies, tagged rules data) live only in unions.
    from service.views import schemas as wire

    roots = [wire.CreateGame, wire.RulesData, wire.Move, wire.Event, wire.StateView]
    for info in msgspec.inspect.multi_type_info(roots):
        for member in getattr(info, "types", (info,)):
            if isinstance(member, msgspec.inspect.StructType):
                cls = member.cls
                if cls not in found.get(cls.__name__, []):
                    found.setdefault(cls.__name__, []).append(cls)
    return found


def _own_doc(cls: type) -> str | None:
    """The class's docstring, or its nearest project base's (tagged copies made with
    ``defstruct`` have none of their own); never msgspec's own."""
    for klass in cls.__mro__:
        if klass is msgspec.Struct or not klass.__module__.startswith(("domain", "service")):
            continue
        doc = klass.__dict__.get("__doc__")
        if doc:
            return inspect.cleandoc(doc)
    return None


def _describe_schemas(doc: dict[str, Any]) -> None:
    """Schema descriptions from the Structs' docstrings (Litestar keeps only the fields'
    ``Meta(description=...)``), and one for every tag field (a constant)."""
    from service.views.descriptions import DESCRIPTIONS

    classes = _struct_classes()
    for key, schema in doc["components"]["schemas"].items():
        table = DESCRIPTIONS.get(schema.get("title", key), {})
        if "description" not in schema and "" in table:
            schema["description"] = table[""]
        for field, prop in schema.get("properties", {}).items():
            if "description" not in prop and field in table:
                prop["description"] = table[field]
        candidates = _classes_of(key, classes)
        if "description" not in schema and candidates:
            text = _own_doc(candidates[0])
            if text:
                schema["description"] = text
        for field, prop in schema.get("properties", {}).items():
            if "const" not in prop:
                continue
            if "description" not in prop:
                prop["description"] = (
                    f"Always `{prop['const']}`: says which kind of object this is "
                    f"(the `{field}` tag of a union)."
                )
            # Still required (the server needs the tag), but with its only value as the
            # default, so generated clients fill it in: ``HumanSeat()``, not
            # ``HumanSeat(type_="human")``.
            prop.setdefault("default", prop["const"])


def _classes_of(key: str, classes: dict[str, list[type[msgspec.Struct]]]) -> list[type[Any]]:
    """The Struct classes a component schema may be of."""
    name = key.rsplit("_", 1)[-1]
    candidates = classes.get(name, [])
    if len(candidates) > 1:  # two games define one name: the key holds the module path
        candidates = [
            c
            for c in candidates
            if key == c.__module__.removeprefix("domain.").replace(".", "_") + "_" + name
        ] or candidates
    return list(candidates)


# The limits of a string that msgspec enforces, as JSON Schema names them.
_STRING_LIMITS = {"min_length": "minLength", "max_length": "maxLength", "pattern": "pattern"}


def _optional_string_limits(doc: dict[str, Any]) -> None:
    """The limits of an optional string field (``Annotated[str, Meta(max_length=40)] |
    None``): msgspec enforces them, Litestar's document leaves them out of the ``oneOf``'s
    string member. Every limit the server enforces is in the contract."""
    classes = _struct_classes()
    for key, schema in doc["components"]["schemas"].items():
        candidates = _classes_of(key, classes)
        if not candidates:
            continue
        info = msgspec.inspect.type_info(candidates[0])
        for field in getattr(info, "fields", ()):
            kind = field.type
            if isinstance(kind, msgspec.inspect.Metadata):  # a description around it
                kind = kind.type
            options = getattr(kind, "types", ())
            strings = [t for t in options if isinstance(t, msgspec.inspect.StrType)]
            prop = schema.get("properties", {}).get(field.encode_name)
            if len(strings) != 1 or prop is None:
                continue
            limits = {
                json_name: getattr(strings[0], name)
                for name, json_name in _STRING_LIMITS.items()
                if getattr(strings[0], name) is not None
            }
            for member in prop.get("oneOf", []):
                if member.get("type") == "string":
                    member.update(limits)


def _component_names(doc: dict[str, Any]) -> None:
    """Readable names for types two parts of the domain both define (Litestar falls back to
    module paths, ``fbi_cards_Card``): a game's are its name in CamelCase, then the type
    (``FbiCard``); the match layer's are ``match_`` and the type, whichever module of the
    package holds it (``match_events_GameStarted`` is ``match_GameStarted``)."""
    schemas = doc["components"]["schemas"]
    renames: dict[str, str] = {}
    for key in list(schemas):
        name = key.rsplit("_", 1)[-1]
        for game in registry.names():
            if key.startswith(game + "_"):
                new = "".join(part.title() for part in game.split("_")) + name
                renames[key] = new
                schemas[new] = {**schemas.pop(key), "title": new}  # generators name by title
        if key.startswith("match_"):
            renames[key] = "match_" + name
            schemas[renames[key]] = schemas.pop(key)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.rsplit("/", 1)[1] in renames:
                node["$ref"] = "#/components/schemas/" + renames[ref.rsplit("/", 1)[1]]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)


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


def _webhooks(schemas: dict[str, Any]) -> dict[str, Any]:
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


_ENUM_TEXT = {
    "BotLevel": "A bot's level: random (uniform over legal moves), greedy (a one-move "
    "heuristic), expert (a search over what its seat can know).",
    "SeatType": "Who plays a seat: human (a client), bot (the server) or open (nobody "
    "yet: claimed with its invite).",
    "GameStatus": "A game's status: waiting (a seat is open), active, finished (with a "
    "result), abandoned (nobody acted for STAKEOUT_ABANDON_SECONDS) or aborted (by its "
    "creator).",
    "GameName": "A game this server runs.",
    "EventKind": "A webhook (and account feed) notification kind.",
    "TicketStatus": "A matchmaking ticket's status: waiting, matching (seated, its game being "
    "made), matched, cancelled or expired.",
    "FbiColour": "An FBI character colour.",
    "FbiCardColour": "An FBI card colour (purple: the slammer cards).",
    "FbiAgent": "An FBI field agent: a colour, or 2x (doubles the other selected agent).",
}


def _named_enums() -> dict[tuple[str, ...], str]:
    """The project's named string Literals (``Colour``, ``BotLevel``…), by their values;
    a game's own are prefixed with its name (``FbiColour``, ``FedsColour``)."""
    games = {g: "".join(p.title() for p in g.split("_")) for g in registry.names()}
    found: dict[tuple[str, ...], str] = {}
    modules = [
        (name, module)
        for name, module in sys.modules.items()
        if name.startswith(("domain.", "service.")) and module is not None
    ]
    # Shared modules first: a game module that imports BotLevel does not own it.
    modules.sort(key=lambda item: (item[0].split(".")[1] in games, item[0]))
    for module_name, module in modules:
        game = module_name.split(".")[1] if module_name.startswith("domain.") else ""
        for name, value in sorted(vars(module).items()):
            if typing.get_origin(value) is not typing.Literal:
                continue
            values = typing.get_args(value)
            if not values or not all(isinstance(v, str) for v in values):
                continue
            found.setdefault(tuple(values), games.get(game, "") + name)
    return found


def _name_enums(doc: dict[str, Any]) -> None:
    """One component per named enum, referenced wherever its values appear (nullable ones
    as ``oneOf: [$ref, null]``), so client generators make one type per concept with the
    name a person would write, instead of one per property (or three per nullable one)."""
    named = _named_enums()
    schemas = doc["components"]["schemas"]
    used: dict[str, list[str]] = {}

    def rewrite(node: dict[str, Any]) -> None:
        values = node.get("enum")
        if not isinstance(values, list):
            return
        nullable = None in values
        key = tuple(v for v in values if v is not None)
        name = named.get(key)
        if name is None or not key:
            return
        used[name] = list(key)
        ref = {"$ref": f"#/components/schemas/{name}"}
        for field in ("enum", "type"):
            node.pop(field, None)
        if nullable:
            node["oneOf"] = [ref, {"type": "null"}]
        else:
            node.update(ref)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            rewrite(node)
            for value in list(node.values()):
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc["components"]["schemas"])
    walk(doc.get("paths", {}))
    for name, values in used.items():
        text = _ENUM_TEXT.get(name, f"One of: {', '.join(values)}.")
        schemas[name] = {"type": "string", "enum": values, "title": name, "description": text}


def _conditional(responses: dict[str, Any]) -> None:
    """A conditional read's ETag and Vary headers, on its 200 and its declared 304
    (service/http/route_contract.py `conditional`: Litestar's answers have no headers)."""
    etag = {
        "description": "The game's version, quoted: send it back in If-None-Match",
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
    }
    vary = {
        "description": "Authorization: each caller sees its own view",
        "schema": {"type": "string"},
    }
    ok = responses.setdefault("200", {})
    ok["headers"] = {**ok.get("headers", {}), "ETag": etag, "Vary": vary}
    responses["304"]["headers"] = {"ETag": etag, "Vary": vary}


def finish(generated: dict[str, Any]) -> dict[str, Any]:
    """Complete Litestar's document (pure; idempotent)."""
    doc = copy.deepcopy(generated)
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    _describe_schemas(doc)
    _optional_string_limits(doc)
    _component_names(doc)
    schemas["Problem"] = _problem_schema()
    components["securitySchemes"] = copy.deepcopy(_SECURITY_SCHEMES)
    doc["security"] = []
    doc["servers"] = [{"url": "/", "description": "This server"}]
    for name in _strict_request_schemas():
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    for item in doc.get("paths", {}).values():
        for method, op in item.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                _finish_operation(op)
    _add_discriminators(doc, schemas)
    _name_enums(doc)
    doc["webhooks"] = _webhooks(schemas)
    _request_defaults_in_words(doc)
    return doc


def _finish_operation(op: dict[str, Any]) -> None:
    """One operation: its parameters, and what its handler's declarations imply that
    Litestar cannot say (answer headers, a second media type, links)."""
    op_id = op.get("operationId", "")
    for param in op.get("parameters", []):
        _drop_null(param)
    responses = op.setdefault("responses", {})
    headers = {p["name"] for p in op.get("parameters", []) if p.get("in") == "header"}
    if "429" in responses:  # declared by every route the rate limit counts
        responses["429"]["headers"] = {
            "Retry-After": {
                "description": "Seconds until the credential may send again",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    if "Prefer" in headers and "200" in responses:  # an act that may answer its view
        responses["200"]["headers"] = {
            "Preference-Applied": {
                "description": "`return=representation` when the answer carries `view`"
                " (asked for with `Prefer: return=representation`)",
                "schema": {"type": "string", "enum": ["return=representation"]},
            }
        }
    if "304" in responses:
        _conditional(responses)
    if op_id == "createGame":
        _link_created_game(responses.get("201", {}))
    if "Accept" in headers and "200" in responses:  # a live feed, SSE or JSON lines
        content = responses["200"].setdefault("content", {})
        content["application/x-ndjson"] = {
            "schema": {
                "type": "string",
                "description": "JSON lines (with `Accept: application/x-ndjson`): one "
                "message per line, each an object with `kind` and `version`",
            }
        }
    if op_id in _TICKET_LINKS:
        _link_ticket(op_id, responses)
    if op_id == "claimInvite":
        claimed = responses.get("201", {})
        claimed["links"] = {
            name: {
                "operationId": target,
                "parameters": {"game_id": "$response.body#/game_id"},
                "description": f"{target} on the claimed seat's game",
            }
            for name, target in _CLAIM_LINK_TARGETS.items()
        }


# A new ticket leads to itself (read, cancel); a read ticket leads to its game.
_TICKET_LINKS = {
    "createTicket": ("201", "/id", {"GetTicket": "getTicket", "CancelTicket": "cancelTicket"}),
    "getTicket": (
        "200",
        "/match/game_id",
        {"GetGame": "getGame", "ListEvents": "listEvents", "PostMove": "postMove"},
    ),
}


def _link_ticket(op_id: str, responses: dict[str, Any]) -> None:
    status, pointer, targets = _TICKET_LINKS[op_id]
    parameter = "ticket_id" if op_id == "createTicket" else "game_id"
    responses.get(status, {})["links"] = {
        name: {
            "operationId": target,
            "parameters": {parameter: "$response.body#" + pointer},
            "description": f"{target} on the "
            + ("ticket" if op_id == "createTicket" else "ticket's game, once matched"),
        }
        for name, target in targets.items()
    }


def _link_created_game(created: dict[str, Any]) -> None:
    created["links"] = {
        name: {
            "operationId": target,
            "parameters": {"game_id": "$response.body#/id"},
            "description": f"{target} on the new game",
        }
        for name, target in _LINK_TARGETS.items()
    }
    # create -> claim (the second seat's invite, when it is an open seat).
    created["links"]["ClaimInvite"] = {
        "operationId": "claimInvite",
        "parameters": {"code": "$response.body#/seats/1/invite/code"},
        "description": "claimInvite with the second seat's invite (an open seat)",
    }


_SECURITY_SCHEMES = {
    "apiKey": {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key: creates games; reads any game as a spectator.",
    },
    "seatToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat token from createGame: acts as that seat of that game.",
    },
    # Last: the docs page's Authorize dialog shows the schemes in this order, and a
    # person (and tests/browser/test_docs.py) fills the first: an API key.
    "ticketSecret": {
        "type": "http",
        "scheme": "bearer",
        "description": "A matchmaking ticket's secret from createTicket: reads the ticket "
        "(with its seat token once matched) and cancels it.",
    },
}


def _refs(node: Any) -> set[str]:
    """The component names ``node`` refers to."""
    if isinstance(node, dict):
        out = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            out |= _refs(value)
        return out
    if isinstance(node, list):
        return set().union(*(_refs(item) for item in node)) if node else set()
    return set()


def _request_defaults_in_words(doc: dict[str, Any]) -> None:
    """An optional property of a request body says its default in words, not ``default``.

    openapi-typescript (default flags) makes every property with a ``default`` required, so
    a body's ``private`` or an option would become mandatory in TypeScript. Required
    properties keep theirs: a tag's ``default`` (its only value) lets openapi-python-client
    fill it in."""
    schemas = doc["components"]["schemas"]
    todo = set().union(
        *(
            _refs(op.get("requestBody", {}))
            for item in doc.get("paths", {}).values()
            for op in item.values()
            if isinstance(op, dict)
        )
    )
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        schema = schemas[name]
        todo |= _refs(schema)
        required = set(schema.get("required", []))
        for field, prop in schema.get("properties", {}).items():
            if field in required or "default" not in prop:
                continue
            value = json.dumps(prop.pop("default"))
            text = prop.get("description", "").rstrip()
            prop["description"] = f"{text} Default: `{value}`.".lstrip()
