"""The errors of players and matchmaking."""

from __future__ import annotations

from service.play.errors import ServiceError


class UnknownPlayer(ServiceError):
    """The player has no rating in that game kind (``?around=``)."""

    code = "unknown-player"
