"""Play over one connection: ``GET /v1/games/{game_id}/play``, a WebSocket per seat.

A seat's client sends its acts as frames and is pushed its view after every change, so a
turn costs no view read and no HTTP request (issue 40). Everything a frame does goes
through what the HTTP routes use, written once:

- **Who.** A seat token in ``Authorization``, or (a browser's WebSocket sends no header) a
  stream ticket in ``?ticket=`` as the live feeds take it (service/live/access.py); an API
  key or nothing connects as a spectator, as GET /v1/games/{id} reads the game. Checked on
  connect; a refusal is a ``problem`` frame, then the close code of its status.
- **Acts.** ``move``, ``commit`` and ``reveal`` frames carry the body of their POST; each is
  decoded strictly as the POST's body is (`decode_body`), counted by the app's rate limit
  as its POST would be, and answered by `Answers.act` (the same refusals, Idempotency-Key
  and redaction) with an ``answer`` frame of the POST's answer, or a ``problem`` frame of
  the POST's problem. Frames are answered one after the other, in the order sent.
- **Views.** ``view`` frames come from the live readers (`GameFeeds.play_views`), the same
  notification path as the live feeds, so an act made through any API process, over HTTP
  or a socket, reaches every socket; each view is the JSON GET /v1/games/{id} answers to
  the credential.

What is sent waits in a bounded buffer (`SEND_BUFFER` frames): a client that does not read
them is closed (`CLOSE_SLOW_READER`) rather than held in memory. A frame longer than
``STAKEOUT_MAX_BODY_BYTES`` is refused (413) unread; uvicorn closes with 1009 one longer
than ``WS_FRAME_FACTOR`` times that (stakeout/cli.py).

The messages and close codes are listed below (`SERVER_MESSAGES`, `CLIENT_MESSAGES`,
`CLOSE_CODES`) and described in openapi/asyncapi.yaml; a test keeps the two the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import Annotated, Any

import msgspec
from litestar import WebSocket, websocket
from litestar.datastructures import State
from litestar.params import PathParameter

from service.api.v1.params import IDEMPOTENCY_KEY_PATTERN, Injected
from service.http.problems import Problem, to_problem
from service.http.ratelimit import Identity, RateLimitMiddleware
from service.http.requests import decode_body
from service.live.access import ticket_caller
from service.live.errors import TokenInUrl
from service.live.game_feeds import GameFeeds, PlayPush
from service.live.tickets import TicketStore
from service.play.access import Access, Caller
from service.play.errors import InvalidRequest, ServiceError
from service.play.game_service import GameService
from service.seats.act_kinds import ActRequest
from service.seats.answers import Answers
from service.settings import Settings
from service.views.schemas import Commit, Move, Reveal

log = logging.getLogger("stakeout.play")

PATH = "/v1/games/{game_id:str}/play"
# The messages of the channel, by their ``type`` (openapi/asyncapi.yaml lists the same).
SERVER_MESSAGES = ("view", "answer", "problem", "pong", "presence")
CLIENT_MESSAGES = ("move", "commit", "reveal", "ping")
# An act's frame type -> its POST's body type and route (the rate limit counts the route).
ACTS: dict[str, tuple[Any, str]] = {
    "move": (Move, "moves"),
    "commit": (Commit, "commitments"),
    "reveal": (Reveal, "reveals"),
}

# The close codes the server sends (RFC 6455 §7.4: 4000-4999 are the application's). A
# refusal on connect closes with 4000 + its problem's status after the problem frame (a
# 4xx without a code of its own: 4400; the store away or another error of the server: 1011).
CLOSE_GOING_AWAY = 1001  # this process drains (shutting down): reconnect, another answers
CLOSE_INTERNAL = 1011
CLOSE_GAME_OVER = 4100  # the game is over: its final view was sent
CLOSE_SLOW_READER = 4101  # more than SEND_BUFFER frames waited for the client to read them
CLOSE_CODES: dict[int, str] = {
    CLOSE_GOING_AWAY: "going-away",
    1009: "frame-too-large",
    CLOSE_INTERNAL: "internal",
    1012: "server-restart",
    4400: "invalid-request",
    4401: "unauthorized",
    4403: "forbidden",
    4404: "unknown-game",
    CLOSE_GAME_OVER: "game-over",
    CLOSE_SLOW_READER: "slow-reader",
}
SEND_BUFFER = 64
# An answer still being worked out when the game ends is sent before the close: waited for
# this long at most.
SETTLE_SECONDS = 5.0

_GAME_ID = re.compile(r"[0-9a-f]{24}")
_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_ENCODER = msgspec.json.Encoder()


class _TooLarge(ServiceError):
    code = "payload-too-large"


class ClientFrame(msgspec.Struct, forbid_unknown_fields=True):
    """A frame from the client: ``type`` one of `CLIENT_MESSAGES`; an act's ``body`` is its
    POST body, kept as sent (a reveal's move is hashed as sent, a key's fingerprint covers
    it)."""

    type: str
    ref: str | None = None
    body: msgspec.Raw = msgspec.Raw(b"")  # empty: not sent
    idempotency_key: str | None = None
    if_match: int | None = None


_FRAME = msgspec.json.Decoder(ClientFrame)


class SendBuffer:
    """The frames waiting to be sent, at most `SEND_BUFFER`, and why the socket closes."""

    def __init__(self) -> None:
        self.frames: asyncio.Queue[str] = asyncio.Queue(SEND_BUFFER)
        self.close: tuple[int, str] | None = None
        self.closing = asyncio.Event()

    def put(self, frame: dict[str, Any]) -> None:
        if self.close is not None:
            return
        try:
            self.frames.put_nowait(_ENCODER.encode(frame).decode())
        except asyncio.QueueFull:
            self.end(CLOSE_SLOW_READER, "slow-reader")

    def end(self, code: int, reason: str) -> None:
        if self.close is None:
            self.close = (code, reason)
            self.closing.set()


def _problem_frame(ref: str | None, problem: Problem) -> dict[str, Any]:
    return {"type": "problem", "ref": ref, "status": problem.status, "body": problem}


@websocket(PATH)
async def play(  # noqa: PLR0913 - the socket and its collaborators
    socket: WebSocket[Any, Any, Any],
    # Checked in the handler (a refusal before the accept would reach no browser script).
    game_id: Annotated[str, PathParameter(description="The game id returned at creation")],
    state: State,
    games: Injected[GameService],
    access: Injected[Access],
    tickets: Injected[TicketStore],
    feeds: Injected[GameFeeds],
    answers: Injected[Answers],
    settings: Injected[Settings],
) -> None:
    await socket.accept()
    try:
        authorization, caller, ticketed, loaded = await _connect(
            socket, game_id, games, access, tickets
        )
    except Exception as exc:
        found = to_problem(exc)
        code = 4000 + found.status if 4000 + found.status in CLOSE_CODES else 4400
        if found.status >= 500:
            code = CLOSE_INTERNAL
        with contextlib.suppress(Exception):
            await socket.send_text(_ENCODER.encode(_problem_frame(None, found)).decode())
            await socket.close(code, found.type.rsplit(":", 1)[-1])
        return
    session = _Session(socket, state, answers, game_id, authorization, caller, ticketed)
    session.max_frame = settings.max_body_bytes
    await session.run(feeds.play_views(loaded, caller))


async def _connect(
    socket: WebSocket[Any, Any, Any],
    game_id: str,
    games: GameService,
    access: Access,
    tickets: TicketStore,
) -> tuple[str | None, Caller, bool, Any]:
    """The credential, the caller (and whether a stream ticket stands for it) and the game;
    refused as the feeds are."""
    query = socket.query_params
    if "token" in query:
        raise TokenInUrl("a seat token or API key never goes into a URL: use ?ticket=")
    if _GAME_ID.fullmatch(game_id) is None:
        raise InvalidRequest("game_id: a game id is 24 lowercase hex digits")
    loaded = await games.load(game_id)
    ticket = query.get("ticket")
    authorization = socket.headers.get("authorization")
    if ticket is not None:
        caller = await ticket_caller(tickets, ticket, game_id)
        return None, caller, True, loaded  # the ticket stands for the caller
    caller = await access.viewer(loaded, authorization)
    return authorization, caller, False, loaded


class _Session:
    """One open socket: frames received and answered in order, views pushed, one sender."""

    def __init__(
        self,
        socket: WebSocket[Any, Any, Any],
        state: State,
        answers: Answers,
        game_id: str,
        authorization: str | None,
        caller: Caller,
        ticketed: bool,
    ) -> None:
        self.socket = socket
        self.answers = answers
        self.game_id = game_id
        self.authorization = authorization
        self.caller = caller
        # A ticket's socket has no token: its acts name their caller themselves.
        self.known = caller if ticketed else None
        self.rate_limit: RateLimitMiddleware | None = getattr(state, "rate_limit", None)
        self.max_frame = 0  # characters of a frame at most (STAKEOUT_MAX_BODY_BYTES)
        self.outbox = SendBuffer()
        self.acting = asyncio.Lock()  # held while a frame is answered

    async def run(self, pushes: Any) -> None:
        tasks = [
            asyncio.create_task(self._send()),
            asyncio.create_task(self._push(pushes)),
            asyncio.create_task(self._receive()),
        ]
        try:
            await self.outbox.closing.wait()
            code, reason = self.outbox.close or (CLOSE_INTERNAL, "internal")
            if code not in (0, CLOSE_SLOW_READER):
                # What was answered or pushed before the end goes out first.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(SETTLE_SECONDS):
                        async with self.acting:
                            await self.outbox.frames.join()
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            with contextlib.suppress(Exception):
                await pushes.aclose()
        if code:  # 0: the client left
            with contextlib.suppress(Exception):
                async with asyncio.timeout(SETTLE_SECONDS):  # a reader that reads nothing
                    await self.socket.close(code, reason)

    async def _send(self) -> None:
        try:
            while True:
                frame = await self.outbox.frames.get()
                await self.socket.send_text(frame)
                self.outbox.frames.task_done()
        except asyncio.CancelledError:
            raise
        except Exception:  # the client left
            self.outbox.end(0, "")

    async def _push(self, pushes: Any) -> None:
        try:
            async for push in pushes:
                self._pushed(push)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("play socket of game %s: its views stopped", self.game_id)
            self.outbox.end(CLOSE_INTERNAL, "internal")

    def _pushed(self, push: PlayPush) -> None:
        if push.kind == "view":
            self.outbox.put({"type": "view", "version": push.version, "view": push.body})
        elif push.kind == "presence":
            self.outbox.put({"type": "presence", **push.body})
        elif push.body == "game-over":
            self.outbox.end(CLOSE_GAME_OVER, "game-over")
        else:
            self.outbox.end(CLOSE_GOING_AWAY, "going-away")

    async def _receive(self) -> None:
        try:
            while True:
                message = await self.socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                async with self.acting:
                    await self._answer(text if isinstance(text, str) else None)
        except asyncio.CancelledError:
            raise
        except Exception:  # the client left mid-frame
            log.debug("play socket: receive ended", exc_info=True)
        self.outbox.end(0, "")

    async def _answer(self, text: str | None) -> None:
        """One frame from the client (None: a binary one) answered: a pong, an act's
        answer, or a problem."""
        if text is None:
            self._refuse(None, InvalidRequest("a binary frame: send JSON text frames"))
            return
        if len(text) > self.max_frame:  # characters: at least as many bytes
            self._refuse(None, _TooLarge(f"a frame is at most {self.max_frame} bytes"))
            return
        try:
            frame = _FRAME.decode(text)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            self._refuse(None, InvalidRequest(f"not a frame of this channel: {exc}"))
            return
        if frame.type == "ping":
            self.outbox.put({"type": "pong"})
            return
        try:
            await self._act(frame)
        except Exception as exc:
            self._refuse(frame.ref, exc)

    async def _act(self, frame: ClientFrame) -> None:
        found = ACTS.get(frame.type)
        if found is None:
            raise InvalidRequest(
                f"type: {frame.type!r} is no frame type (one of: {', '.join(CLIENT_MESSAGES)})"
            )
        body_type, route = found
        key = frame.idempotency_key
        if key is not None and _KEY.fullmatch(key) is None:
            raise InvalidRequest(f"idempotency_key: must match {IDEMPOTENCY_KEY_PATTERN}")
        if frame.if_match is not None and frame.if_match < 0:
            raise InvalidRequest("if_match: a version is a whole number")
        if not frame.body:
            raise InvalidRequest(f"body: a {frame.type} frame carries its POST body")
        raw = bytes(frame.body)
        data = decode_body(raw, body_type)
        await self._limit(route)
        act = ActRequest(
            self.game_id,
            self.authorization,
            data,
            raw,
            key,
            frame.if_match,
            caller=self.known,
        )
        answer, _ = await self.answers.act(act)
        self.outbox.put({"type": "answer", "ref": frame.ref, "status": 200, "body": answer})

    async def _limit(self, route: str) -> None:
        """The app's rate limit, counting the act as its POST would be counted."""
        if self.rate_limit is None:
            return
        scope: Any = {
            **self.socket.scope,
            "type": "http",
            "method": "POST",
            "path": f"/v1/games/{self.game_id}/{route}",
        }
        seat = self.caller.seat
        who = None if seat is None else Identity(f"seat:{self.game_id}:{seat}", self.game_id, seat)
        refusal = await self.rate_limit.refusal(scope, who)
        if refusal is not None:
            raise refusal

    def _refuse(self, ref: str | None, exc: Exception) -> None:
        self.outbox.put(_problem_frame(ref, to_problem(exc)))
