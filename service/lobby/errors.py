"""The errors of the lobby: invites (the refusals of a seat's claim are the rules')."""

from __future__ import annotations

from service.play.errors import ServiceError


class UnknownInvite(ServiceError):
    code = "unknown-invite"

    def __init__(self) -> None:
        super().__init__("no such invite (check the code)")
