"""The security schemes: the three kinds of bearer credential."""

from __future__ import annotations

SECURITY_SCHEMES = {
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
