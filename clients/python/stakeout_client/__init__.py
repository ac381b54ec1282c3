"""stakeout's Python client: ``from stakeout_client import Stakeout``.

The wire types (`stakeout_client.models`) are generated from the contract; the rest is the
protocol no generator knows (docs/clients.md, clients/python/README.md).
"""

from stakeout_client import sealed
from stakeout_client._wire import models
from stakeout_client._wire.contract import CONTRACT_VERSION
from stakeout_client.client import Stakeout, bot, human, open_seat
from stakeout_client.clocks import (
    ClockReading,
    PresenceMessage,
    SeatPresence,
    ServerClock,
    clock_at,
    presence_message,
    presence_of,
    with_presence,
)
from stakeout_client.errors import (
    Conflict,
    Forbidden,
    GameFinished,
    IllegalMove,
    InvalidRequest,
    NotFound,
    NotYourTurn,
    ProblemError,
    RateLimited,
    RevealMismatch,
    Unauthorized,
    Unavailable,
    VersionMismatch,
)
from stakeout_client.games import Game, Seat, Turn, as_json, tag_of
from stakeout_client.sealed import SealedChoice
from stakeout_client.tickets import Ticket
from stakeout_client.transport import Retry
from stakeout_client.webhooks import verify_signature

__all__ = [
    "CONTRACT_VERSION",
    "ClockReading",
    "Conflict",
    "Forbidden",
    "Game",
    "GameFinished",
    "IllegalMove",
    "InvalidRequest",
    "NotFound",
    "NotYourTurn",
    "PresenceMessage",
    "ProblemError",
    "RateLimited",
    "Retry",
    "RevealMismatch",
    "SealedChoice",
    "Seat",
    "SeatPresence",
    "ServerClock",
    "Stakeout",
    "Ticket",
    "Turn",
    "Unauthorized",
    "Unavailable",
    "VersionMismatch",
    "as_json",
    "bot",
    "clock_at",
    "human",
    "models",
    "open_seat",
    "presence_message",
    "presence_of",
    "sealed",
    "tag_of",
    "verify_signature",
    "with_presence",
]
__version__ = CONTRACT_VERSION
