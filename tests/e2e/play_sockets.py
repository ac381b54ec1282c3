"""A seat played over its play socket (``GET /v1/games/{id}/play``), for the tests: it acts
when a pushed view awaits it, one act at a time, and checks what the channel promises on
the way (views in increasing versions, each act answered under its ``ref``)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.processes import HumanSeat, auth, next_request

# The act's frame type for the POST path `next_request` names.
FRAME_TYPES = {"moves": "move", "commitments": "commit", "reveals": "reveal"}


def ws_base(http_base: str) -> str:
    return "ws" + http_base.removeprefix("http")


def play_url(http_base: str, game_id: str, query: str = "") -> str:
    return f"{ws_base(http_base)}/v1/games/{game_id}/play" + (f"?{query}" if query else "")


async def open_seat(
    http_base: str, game_id: str, token: str | None = None, query: str = ""
) -> ClientConnection:
    headers = auth(token) if token else {}
    return await connect(play_url(http_base, game_id, query), additional_headers=headers)


async def frame(ws: ClientConnection) -> dict[str, Any]:
    """The next frame (a text frame of JSON: the channel sends nothing else)."""
    text = await ws.recv()
    assert isinstance(text, str), f"a binary frame: {text!r}"
    decoded: dict[str, Any] = json.loads(text)
    return decoded


@dataclass
class SocketSeat:
    """One seat playing over a socket; ``log``: every frame it got, in order."""

    http_base: str
    game_id: str
    seat: int
    token: str
    rng: random.Random
    human: HumanSeat = field(init=False)
    log: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] | None = None
    answers: list[dict[str, Any]] = field(default_factory=list)
    pending: dict[str, Any] | None = None  # the act sent and not answered yet
    acted_at: int = 0  # the version its last answered act made
    close_code: int | None = None

    def __post_init__(self) -> None:
        self.human = HumanSeat(self.game_id, self.seat, self.token)

    @property
    def version(self) -> int:
        return -1 if self.view is None else int(self.view["version"])

    async def play(
        self,
        stop_after_acts: int | None = None,
        ticket: str | None = None,
        http_base: str | None = None,
    ) -> int | None:
        """Play until the socket closes (the game over: 4100, or the server gone), or until
        ``stop_after_acts`` acts were answered (then the client hangs up); the close code
        (None: it hung up). ``http_base``: another API process to connect to this time.

        Called again, it reconnects: the act left unanswered is sent again under its
        Idempotency-Key, and the first view may be the one it had (never an older one)."""
        base = http_base or self.http_base
        query = f"ticket={ticket}" if ticket is not None else ""
        ws = await open_seat(base, self.game_id, None if ticket else self.token, query)
        first_view = True
        acted_at = self.acted_at
        try:
            if self.pending is not None:
                await ws.send(json.dumps(self.pending))
            while True:
                try:
                    message = await frame(ws)
                except ConnectionClosed:
                    self.close_code = ws.close_code
                    return self.close_code
                self.log.append(message)
                if message["type"] == "view":
                    newer = message["version"] >= self.version if first_view else None
                    assert newer or message["version"] > self.version, "an older view"
                    assert message["view"]["version"] == message["version"]
                    self.view, first_view = message["view"], False
                elif message["type"] == "answer":
                    assert self.pending is not None, message
                    assert message["ref"] == self.pending["ref"], message
                    assert message["status"] == 200
                    self.answers.append(message["body"])
                    self.pending = None
                    acted_at = self.acted_at = message["body"]["version"]
                    if stop_after_acts is not None and len(self.answers) >= stop_after_acts:
                        return None
                elif message["type"] == "problem":
                    raise AssertionError(f"seat {self.seat}: {message}")
                if self.pending is None and self.view is not None and self.version >= acted_at:
                    await self.act(ws)
        finally:
            await ws.close()

    @property
    def acts(self) -> int:
        return len(self.answers)

    async def act(self, ws: ClientConnection) -> None:
        """Send the act its view awaits (kept as `pending` until answered)."""
        assert self.view is not None
        found = next_request(self.human, self.view, self.rng)
        if found is None:
            return
        path, body = found
        ref = f"{self.seat}-{self.acts}"
        self.pending = {
            "type": FRAME_TYPES[path.rsplit("/", 1)[1]],
            "ref": ref,
            "body": body,
            "idempotency_key": f"k-{self.game_id}-{ref}",
        }
        await ws.send(json.dumps(self.pending))
