"""The request types that refuse unknown fields (``additionalProperties: false``)."""

from __future__ import annotations

from domain import registry


def strict_request_schemas() -> set[str]:
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
