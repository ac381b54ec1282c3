"""A game and its seats: what a player's program holds.

`Seat.wait_for_turn` long-polls (``after_version``, ``wait``) until the game awaits the
seat; `Seat.play` posts a move, or in a sealed step commits (keeping the salt), waits for
every seat to commit and reveals. Every act carries an Idempotency-Key, so the transport
may retry it after a lost connection: the server answers a retry with the first answer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from stakeout_client import sealed
from stakeout_client._wire import models
from stakeout_client.clocks import (
    ClockReading,
    ServerClock,
    clock_at,
    presence_message,
    presence_of,
    with_presence,
)
from stakeout_client.feeds import follow
from stakeout_client.paging import by_version
from stakeout_client.transport import Transport, idempotency_key

OVER = frozenset({"finished", "abandoned", "aborted"})
LONG_POLL_MAX = 30  # seconds: the contract's longest `wait`
REPRESENTATION = {"Prefer": "return=representation"}


def as_json(value: Any) -> Any:
    """A generated Struct (a move, a seat) as the JSON-able value the wire carries."""
    return msgspec.to_builtins(value) if isinstance(value, msgspec.Struct) else value


def tag_of(value: Any) -> str | None:
    """A tagged wire value's tag (a move's or an event's ``type``, a view's ``game``)."""
    if isinstance(value, msgspec.Struct):
        tag = value.__struct_config__.tag
        return tag if isinstance(tag, str) else None
    return None


@dataclass(frozen=True)
class Turn:
    """The game awaits the seat: ``action`` is move, commit or reveal, ``legal`` every move
    it may make (empty for a reveal), ``view`` the view that said so."""

    action: str
    step: str
    legal: list[Any]
    view: models.GameView
    deadline: int | None


class Seat:
    """One seat of one game, acting with its seat token."""

    def __init__(
        self,
        transport: Transport,
        game_id: str,
        number: int,
        token: str,
        pending: sealed.SealedChoice | None = None,
        *,
        live: bool = False,
    ) -> None:
        self._transport = transport
        self.game_id = game_id
        self.number = number
        self.token = token
        # The commitment made and not yet revealed (keep it to reveal after a restart).
        self.pending = pending
        self._view: models.GameView | None = None
        self._clock: ServerClock | None = None  # the server's clock, as of that view
        # With ``live``, turns are awaited on the view feed (one open request for the whole
        # game) rather than by long polls (one request per change of the game).
        self.live = live
        self._feed: Iterator[dict[str, Any]] | None = None

    def close(self) -> None:
        """Closes the seat's view feed, if it has one open."""
        if self._feed is not None:
            self._feed.close()  # type: ignore[attr-defined]
            self._feed = None

    def __repr__(self) -> str:
        return f"Seat(game_id={self.game_id!r}, number={self.number})"

    @property
    def _path(self) -> str:
        return f"/v1/games/{self.game_id}"

    def view(self, *, after_version: int | None = None, wait: int | None = None) -> Any:
        """The seat's view (a long poll with ``after_version`` and ``wait``)."""
        timeout = None if wait is None else wait + 15.0
        response = self._transport.call(
            "GET",
            self._path,
            token=self.token,
            params={"after_version": after_version, "wait": wait},
            timeout=timeout,
        )
        return self._remember(self._transport.decode(response, models.GameView))

    def _remember(self, view: models.GameView) -> models.GameView:
        self._view = view
        self._clock = ServerClock.of(view)
        return view

    @property
    def last_view(self) -> models.GameView | None:
        """The last view the seat got (an act's answer, a GET, the view feed), or None."""
        return self._view

    def server_now_ms(self) -> int | None:
        """The server's time now (epoch ms), from the last view's ``server_time_ms`` and the
        time elapsed since it arrived; None before any view."""
        return None if self._clock is None else self._clock.now_ms()

    def clock(self, seat: int | None = None) -> ClockReading | None:
        """Seat ``seat``'s bank now (this seat's by default), counted down from the last
        view by the server's clock; None without a clock, or before any view."""
        if self._view is None or self._clock is None:
            return None
        number = self.number if seat is None else seat
        return clock_at(self._view, number, self._clock.now_ms())

    def presence(self, seat: int | None = None) -> models.Presence | None:
        """Seat ``seat``'s presence in the last view (kept up to date by the view feed's
        presence messages with ``live``); None for a seat no person plays."""
        if self._view is None:
            return None
        return presence_of(self._view, self.number if seat is None else seat)

    def wait_for_turn(self, timeout: float = 30) -> Turn | None:
        """The seat's next turn, or None once the game is over; `TimeoutError` when
        ``timeout`` seconds pass first. A commit already made for the awaited step is
        not a turn: it waits for the reveal."""
        deadline = time.monotonic() + timeout
        if self.live:
            return self._wait_live(deadline, timeout)
        view = self._view if self._view is not None else self.view()
        while True:
            if view.status in OVER:
                return None
            turn = self._turn_in(view)
            if turn is not None:
                return turn
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self!r} was not awaited within {timeout} s")
            wait = max(1, min(LONG_POLL_MAX, math.ceil(left)))
            view = self.view(after_version=view.version, wait=wait)

    def _wait_live(self, deadline: float, timeout: float) -> Turn | None:
        """`wait_for_turn` on the view feed: its views, newest last, until one awaits the
        seat (a feed that ends falls back to a long poll)."""
        view = self._view
        while True:
            if view is not None:
                if view.status in OVER:
                    return None
                turn = self._turn_in(view)
                if turn is not None:
                    return turn
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self!r} was not awaited within {timeout} s")
            if self._feed is None:
                self._feed = follow(
                    self._transport, self._path + "/stream", token=self.token,
                    params={"feed": "view"}, pings=True,
                )  # fmt: skip
            message = next(self._feed, None)
            if message is None:  # the feed ended: ask once more, by long poll
                self._feed = None
                self.live = False
                return self.wait_for_turn(max(1.0, deadline - time.monotonic()))
            news = presence_message(message)
            if news is not None and self._view is not None:
                self._view = view = with_presence(self._view, news)
            if message.get("kind") != "view":
                continue
            fresh = msgspec.convert(message["view"], models.GameView)
            if self._view is not None and fresh.version < self._view.version:
                continue  # older than the view an act of ours answered with
            view = self._remember(fresh)

    def play(self, move: Any = None, *, timeout: float = 30) -> Any:
        """Plays ``move`` (an item of `Turn.legal`) in the turn the game awaits: a move, or
        a commit, then the reveal once every seat has committed. Answers the last act's
        `MoveAccepted` (with the view after it)."""
        turn = self._turn_in(self._view) if self._view is not None else None
        if turn is None:
            turn = self.wait_for_turn(timeout)
        if turn is None:
            raise RuntimeError(f"{self!r}: the game is over")
        if turn.action == "move":
            return self.move(move)
        if turn.action == "reveal":
            return self.reveal()
        accepted = self.commit(move, step=turn.step)
        after = self.wait_for_turn(timeout)
        if after is not None and after.action == "reveal" and self._pending_for(after.step):
            return self.reveal()
        return accepted  # the choice was forfeited (a deadline), or the game ended

    def move(self, move: Any, *, key: str | None = None, if_match: int | None = None) -> Any:
        headers = dict(REPRESENTATION)
        if if_match is not None:
            headers["If-Match"] = str(if_match)
        return self._act("/moves", as_json(move), key, headers)

    def commit(self, move: Any, *, step: str | None = None, key: str | None = None) -> Any:
        """Commits to ``move`` for ``step`` (the awaited one by default) with a new salt,
        kept in `pending` until the reveal."""
        if step is None:
            turn = self._turn_in(self._view or self.view())
            if turn is None or turn.action != "commit":
                raise RuntimeError(f"{self!r} is not awaited for a commitment")
            step = turn.step
        choice = sealed.SealedChoice(
            self.game_id, step, self.number, as_json(move), sealed.new_salt()
        )
        accepted = self._act("/commitments", {"commitment": choice.commitment}, key)
        self.pending = choice
        return accepted

    def reveal(self, move: Any = None, salt: str | None = None, *, key: str | None = None) -> Any:
        """Reveals the pending choice (or ``move`` and ``salt`` given). A mismatch raises
        `RevealMismatch` with the server's `preimage`; the pending choice is kept."""
        if self.pending is None and (move is None or salt is None):
            raise RuntimeError(f"{self!r} has no commitment to reveal")
        body = {
            "move": as_json(move) if move is not None else self.pending and self.pending.move,
            "salt": salt if salt is not None else self.pending and self.pending.salt,
        }
        accepted = self._act("/reveals", body, key)
        self.pending = None
        return accepted

    def resign(self, *, key: str | None = None) -> Any:
        """A bot plays the seat from now on."""
        return self._act("/resign", None, key)

    def leave(self) -> Any:
        """Leaves a seat claimed by invite, before the start."""
        response = self._transport.call("POST", self._path + "/leave", token=self.token)
        return self._transport.decode(response, models.MoveAccepted)

    def rematch(self) -> Seat:
        """This seat's seat in the rematch (the first call makes the game)."""
        response = self._transport.call("POST", self._path + "/rematch", token=self.token)
        made = self._transport.decode(response, models.RematchCreatedResponse)
        if not isinstance(made.seat, int) or not isinstance(made.token, str):
            raise RuntimeError(f"the rematch of {self!r} gave no seat to this token")
        return Seat(self._transport, made.game_id, made.seat, made.token)

    def events(self, after: int = 0, limit: int | None = None) -> Iterator[Any]:
        """Every event record the seat may see after version ``after``, page by page."""
        return _events(self._transport, self._path, self.token, after, limit)

    def stream(self, feed: str = "events", after: int | None = None) -> Iterator[dict[str, Any]]:
        """The live feed (``events`` or ``view``) as dicts, resumed after a lost connection;
        ``presence`` messages among them (`clocks.presence_message` types one)."""
        return follow(
            self._transport, self._path + "/stream", token=self.token,
            params={"feed": feed, "after": after},
        )  # fmt: skip

    def _turn_in(self, view: Any) -> Turn | None:
        mine = [a for a in view.awaiting if a.seat == self.number]
        if not mine:
            return None
        awaited = mine[0]
        if self.pending is not None and self.pending.step != awaited.step:
            self.pending = None  # that choice was forfeited: its step is gone
        if awaited.action == "commit" and self._pending_for(awaited.step):
            return None
        return Turn(awaited.action, awaited.step, list(view.legal), view, awaited.deadline)

    def _pending_for(self, step: str) -> bool:
        return self.pending is not None and self.pending.step == step

    def _act(
        self, path: str, body: Any, key: str | None, headers: dict[str, str] | None = None
    ) -> Any:
        response = self._transport.call(
            "POST",
            self._path + path,
            token=self.token,
            body=body,
            key=key or idempotency_key(),
            headers=headers or REPRESENTATION,
        )
        accepted = self._transport.decode(response, models.MoveAccepted)
        view = getattr(accepted, "view", None)
        if isinstance(view, models.GameView):
            self._remember(view)
        else:
            self._view = None
        return accepted


class Game:
    """A game as its creator (the API key) sees it, and the seats it was given."""

    def __init__(
        self, transport: Transport, api_key: str | None, game_id: str, created: Any = None
    ) -> None:
        self._transport = transport
        self._key = api_key
        self.id = game_id
        self.created = created  # the creation's answer: the seats' tokens and invites

    def __repr__(self) -> str:
        return f"Game(id={self.id!r})"

    @property
    def _path(self) -> str:
        return f"/v1/games/{self.id}"

    def seat(self, number: int, token: str | None = None, *, live: bool = False) -> Seat:
        """Seat ``number``, acting with ``token`` or the one its creation gave; ``live``
        awaits its turns on the view feed instead of by long polls."""
        if token is None:
            grants = {g.seat: g for g in (self.created.seats if self.created else [])}
            grant = grants.get(number)
            token = getattr(grant, "token", None)
            if not token:
                raise ValueError(f"seat {number} of {self!r} has no token here (not human?)")
        return Seat(self._transport, self.id, number, token, live=live)

    def invite(self, number: int) -> str:
        """The invite code of open seat ``number``."""
        grant = next(g for g in self.created.seats if g.seat == number)
        return str(grant.invite.code)

    def view(self, *, after_version: int | None = None, wait: int | None = None) -> Any:
        """The spectator's view (a long poll with ``after_version`` and ``wait``)."""
        response = self._transport.call(
            "GET", self._path, token=self._key,
            params={"after_version": after_version, "wait": wait},
            timeout=None if wait is None else wait + 15.0,
        )  # fmt: skip
        return self._transport.decode(response, models.GameView)

    def wait_until_over(self, timeout: float = 120) -> Any:
        """The spectator's view once the game is over."""
        deadline = time.monotonic() + timeout
        view = self.view()
        while view.status not in OVER:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self!r} did not end within {timeout} s")
            wait = max(1, min(LONG_POLL_MAX, math.ceil(left)))
            view = self.view(after_version=view.version, wait=wait)
        return view

    def abort(self, *, key: str | None = None) -> Any:
        response = self._transport.call(
            "POST", self._path + "/abort", token=self._key, key=key or idempotency_key()
        )
        return self._transport.decode(response, models.MoveAccepted)

    def fill(self, level: str = "random") -> Any:
        """Bots take every open seat (before the start)."""
        response = self._transport.call(
            "POST", self._path + "/fill", token=self._key, body={"level": level}
        )
        return self._transport.decode(response, models.MoveAccepted)

    def events(self, after: int = 0, limit: int | None = None) -> Iterator[Any]:
        return _events(self._transport, self._path, self._key, after, limit)

    def stream(self, feed: str = "events", after: int | None = None) -> Iterator[dict[str, Any]]:
        return follow(
            self._transport, self._path + "/stream", token=self._key,
            params={"feed": feed, "after": after},
        )  # fmt: skip

    def replay(self) -> Any:
        """Every event unredacted, the acts and the seed (a game that is over)."""
        response = self._transport.call("GET", self._path + "/replay", token=self._key)
        return self._transport.decode(response, models.ReplayDocument)

    def replay_view(self, version: int, seat: int | None = None) -> Any:
        response = self._transport.call(
            "GET", f"{self._path}/replay/{version}", token=self._key, params={"seat": seat}
        )
        return self._transport.decode(response, models.GameView)


def _events(
    transport: Transport, path: str, token: str | None, after: int, limit: int | None
) -> Iterator[Any]:
    def page(start: int) -> Any:
        response = transport.call(
            "GET", path + "/events", token=token, params={"after": start, "limit": limit}
        )
        return transport.decode(response, models.EventPage)

    return by_version(page, after)
