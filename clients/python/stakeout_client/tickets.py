"""A matchmaking ticket, read with its secret: it waits until matched, then gives the seat."""

from __future__ import annotations

import time
from typing import Any

from stakeout_client._wire import models
from stakeout_client.games import Seat
from stakeout_client.transport import Transport


class Ticket:
    def __init__(self, transport: Transport, ticket_id: str, secret: str) -> None:
        self._transport = transport
        self.id = ticket_id
        self.secret = secret  # `mmt_…`, shown once at creation: what the player's app holds

    def __repr__(self) -> str:
        return f"Ticket(id={self.id!r})"

    def read(self) -> Any:
        response = self._transport.call(
            "GET", f"/v1/matchmaking/tickets/{self.id}", token=self.secret
        )
        return self._transport.decode(response, models.TicketView)

    def cancel(self) -> Any:
        response = self._transport.call(
            "DELETE", f"/v1/matchmaking/tickets/{self.id}", token=self.secret
        )
        return self._transport.decode(response, models.TicketView)

    def wait_for_match(self, timeout: float = 60, poll: float = 0.5) -> Seat:
        """The seat once matched (the matcher runs on a worker: polled every ``poll`` s)."""
        deadline = time.monotonic() + timeout
        while True:
            ticket = self.read()
            if ticket.match is not None and ticket.match.token:
                match = ticket.match
                return Seat(self._transport, match.game_id, match.seat, match.token)
            if ticket.status not in {"waiting", "matching", "matched"}:
                raise RuntimeError(f"{self!r} is {ticket.status}")
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{self!r} was not matched within {timeout} s")
            time.sleep(poll)
