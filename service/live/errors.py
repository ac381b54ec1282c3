"""The errors of opening a live feed."""

from __future__ import annotations

from service.play.errors import ServiceError


class TokenInUrl(ServiceError):
    code = "token-in-url"


class InvalidTicket(ServiceError):
    """A stream ticket that is unknown, used, expired, or for another feed."""

    code = "invalid-ticket"
