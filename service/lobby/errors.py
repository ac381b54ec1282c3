"""The errors of the lobby: invites (the refusals of a seat's claim are the rules')."""

from __future__ import annotations

from service.play.errors import ServiceError


class UnknownInvite(ServiceError):
    code = "unknown-invite"

    def __init__(self) -> None:
        super().__init__("no such invite (check the code)")


class IdentityNeedsApiKey(ServiceError):
    """A claim made with the invite code alone names an external_id: only the game's API
    key (the backend) binds one."""

    code = "identity-needs-api-key"


class SeatBound(ServiceError):
    """The game's API key claims a seat its creation bound to another external_id."""

    code = "seat-bound"
