"""OpenAPI links: from creating a game to playing it, from a claim to the claimed seat,
from a ticket to itself and to its game."""

from __future__ import annotations

from typing import Any

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


# A new ticket leads to itself (read, cancel); a read ticket leads to its game.
TICKET_LINKS = {
    "createTicket": ("201", "/id", {"GetTicket": "getTicket", "CancelTicket": "cancelTicket"}),
    "getTicket": (
        "200",
        "/match/game_id",
        {"GetGame": "getGame", "ListEvents": "listEvents", "PostMove": "postMove"},
    ),
}


def link_ticket(op_id: str, responses: dict[str, Any]) -> None:
    status, pointer, targets = TICKET_LINKS[op_id]
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


def link_created_game(created: dict[str, Any]) -> None:
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


def link_claimed_seat(claimed: dict[str, Any]) -> None:
    claimed["links"] = {
        name: {
            "operationId": target,
            "parameters": {"game_id": "$response.body#/game_id"},
            "description": f"{target} on the claimed seat's game",
        }
        for name, target in _CLAIM_LINK_TARGETS.items()
    }
