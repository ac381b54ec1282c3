"""The errors of matchmaking tickets."""

from __future__ import annotations

from service.play.errors import ServiceError


class UnknownTicket(ServiceError):
    code = "unknown-ticket"

    def __init__(self) -> None:
        super().__init__("no such matchmaking ticket (check the id)")


class TicketMatched(ServiceError):
    """A cancel came too late: the ticket has its seat (its game is made, or being made)."""

    code = "ticket-matched"
