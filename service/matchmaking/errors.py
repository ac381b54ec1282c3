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


class TicketLimit(ServiceError):
    """The API key has as many waiting tickets as it may (``STAKEOUT_MAX_WAITING_TICKETS``)."""

    code = "ticket-limit"


class PlayerTicketLimit(ServiceError):
    """The player waits in as many queues as it may (``STAKEOUT_MAX_PLAYER_TICKETS``)."""

    code = "player-ticket-limit"
