"""`Stakeout`: the API key's side of the API (games, players, leaderboards, matchmaking,
webhooks, the account feed), and where every `Game`, `Seat` and `Ticket` comes from."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx

from stakeout_client._wire import models
from stakeout_client.feeds import follow
from stakeout_client.games import Game, Seat, as_json
from stakeout_client.paging import by_cursor, by_offset
from stakeout_client.tickets import Ticket
from stakeout_client.transport import Retry, Transport


def human(name: str | None = None, external_id: str | None = None) -> dict[str, Any]:
    """A seat played by a person (its token comes back at creation)."""
    return _seat("human", name=name, external_id=external_id)


def bot(level: str = "random", name: str | None = None) -> dict[str, Any]:
    """A seat the server's bot plays: ``random``, ``greedy`` or ``expert``."""
    return _seat("bot", level=level, name=name)


def open_seat(name: str | None = None, external_id: str | None = None) -> dict[str, Any]:
    """A seat left for someone to claim with its invite."""
    return _seat("open", name=name, external_id=external_id)


def _seat(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **{k: v for k, v in fields.items() if v is not None}}


class Stakeout:
    """A client of one stakeout server. ``api_key`` is the backend's key (``sk_…``); a
    program that holds only seat tokens may leave it out and use `seat`."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 10.0,
        max_retries: int = 5,
        on_retry: Callable[[Retry], None] | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        self.api_key = api_key
        client = http or httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        self.transport = Transport(client, max_retries=max_retries, on_retry=on_retry)

    def close(self) -> None:
        self.transport.http.close()

    def __enter__(self) -> Stakeout:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def requests(self) -> int:
        """Requests sent so far, retries included."""
        return self.transport.requests

    # Games -------------------------------------------------------------------------------

    def create_game(
        self, game: str, seats: Sequence[Any], *, options: dict[str, Any] | None = None,
        **extra: Any,
    ) -> Game:  # fmt: skip
        """A new game: ``seats`` of `human`, `bot`, `open_seat` (or the generated
        ``HumanSeat``, ``BotSeat``, ``OpenSeat``); ``extra`` takes ``private``, ``public``,
        ``turn_seconds`` and whatever else the contract's creation body has."""
        body: dict[str, Any] = {"game": game, "seats": [as_json(s) for s in seats], **extra}
        if options is not None:
            body["options"] = options
        response = self._call("POST", "/v1/games", body=body)
        created = self.transport.decode(response, models.GameCreatedResponse)
        return Game(self.transport, self.api_key, created.id, created)

    def game(self, game_id: str) -> Game:
        return Game(self.transport, self.api_key, game_id)

    def seat(self, game_id: str, number: int, token: str) -> Seat:
        """A seat from a token kept elsewhere (a claim, a rematch, a matched ticket)."""
        return Seat(self.transport, game_id, number, token)

    def games(
        self, *, status: str | None = None, game: str | None = None,
        external_id: str | None = None, limit: int | None = None,
    ) -> Iterator[Any]:  # fmt: skip
        """The key's games, newest first, every page (`GameSummary` items)."""
        params = {"status": status, "game": game, "external_id": external_id, "limit": limit}
        return self._pages("/v1/games", params, models.GamePage, "games")

    def lobby(
        self, *, game: str | None = None, state: str | None = None, limit: int | None = None
    ) -> Iterator[Any]:
        """Public games that have not ended, every page."""
        params = {"game": game, "state": state, "limit": limit}
        return self._pages("/v1/lobby", params, models.LobbyPage, "games")

    def stats(self) -> Any:
        return self.transport.decode(self._call("GET", "/v1/stats"), models.Stats)

    def rules(self, game: str | None = None) -> Any:
        """The games (`GameList`), or one game's rules, options and house rules."""
        if game is None:
            return self.transport.decode(self._call("GET", "/v1/rules"), models.GameList)
        response = self._call("GET", f"/v1/rules/{game}")
        return self.transport.decode(response, models.RulesDocument)

    # Invites -----------------------------------------------------------------------------

    def invite(self, code: str) -> Any:
        """What an invite leads to (no credential)."""
        response = self._call("GET", f"/v1/invites/{code}", token=None)
        return self.transport.decode(response, models.InviteInfo)

    def claim_invite(
        self, code: str, *, name: str | None = None, external_id: str | None = None
    ) -> Seat:
        """Claims the invite's seat: with the code alone, or (to bind an ``external_id``)
        with the API key that created the game."""
        token = self.api_key if external_id is not None else None
        body = {k: v for k, v in {"name": name, "external_id": external_id}.items() if v}
        response = self._call("POST", f"/v1/invites/{code}", body=body, token=token)
        claimed = self.transport.decode(response, models.ClaimedSeat)
        return Seat(self.transport, claimed.game_id, claimed.seat, claimed.token)

    # Players and leaderboards ------------------------------------------------------------

    def player(self, external_id: str) -> Any:
        response = self._call("GET", f"/v1/players/{external_id}")
        return self.transport.decode(response, models.PlayerProfile)

    def player_games(
        self, external_id: str, *, status: str | None = None, game: str | None = None,
        limit: int | None = None,
    ) -> Iterator[Any]:  # fmt: skip
        params = {"status": status, "game": game, "limit": limit}
        path = f"/v1/players/{external_id}/games"
        return self._pages(path, params, models.GamePage, "games")

    def leaderboard(
        self, game: str, *, around: str | None = None, limit: int | None = None
    ) -> Iterator[Any]:
        """The game's leaderboard entries, best first (from ``around``'s page when given)."""
        path = f"/v1/leaderboards/{game}"

        # ``around`` names the first page only: the server refuses it beside a cursor.
        def page(cursor: str | None) -> Any:
            params = (
                {"limit": limit, "cursor": cursor} if cursor else {"around": around, "limit": limit}
            )
            return self.transport.decode(
                self._call("GET", path, params=params), models.LeaderboardPage
            )

        return by_cursor(page, "entries")

    # Matchmaking -------------------------------------------------------------------------

    def create_ticket(
        self, game: str, seats: Sequence[int], player: dict[str, Any] | None = None,
        **extra: Any,
    ) -> Ticket:  # fmt: skip
        """A quick-match ticket for a game of any of ``seats`` seats."""
        body: dict[str, Any] = {"game": game, "seats": list(seats), **extra}
        if player is not None:
            body["player"] = player
        response = self._call("POST", "/v1/matchmaking/tickets", body=body)
        created = self.transport.decode(response, models.TicketCreated)
        return Ticket(self.transport, created.id, created.secret)

    def ticket(self, ticket_id: str, secret: str) -> Ticket:
        return Ticket(self.transport, ticket_id, secret)

    # Webhooks ----------------------------------------------------------------------------

    def register_webhook(self, url: str, events: Sequence[str], game_id: str | None = None) -> Any:
        """A receiver; the answer's ``secret`` (shown once) checks its signatures
        (`verify_signature`)."""
        body = {"url": url, "events": list(events), "game_id": game_id}
        response = self._call("POST", "/v1/webhooks", body=body)
        return self.transport.decode(response, models.WebhookCreated)

    def webhooks(self) -> list[Any]:
        response = self._call("GET", "/v1/webhooks")
        return list(self.transport.decode(response, models.WebhookList).webhooks)

    def delete_webhook(self, webhook_id: str) -> None:
        self._call("DELETE", f"/v1/webhooks/{webhook_id}")

    def deliveries(self, webhook_id: str, *, limit: int | None = None) -> Iterator[Any]:
        """Every delivery attempt of the webhook, every page."""

        def page(offset: int) -> Any:
            params = {"offset": offset, "limit": limit}
            response = self._call("GET", f"/v1/webhooks/{webhook_id}/deliveries", params=params)
            return self.transport.decode(response, models.AttemptPage)

        return by_offset(page, "attempts")

    # The account feed --------------------------------------------------------------------

    def feed(self, after: str | None = None) -> Iterator[dict[str, Any]]:
        """Every notification of the key's games from ``after`` (a ``cursor``; without,
        from now), resumed after a lost connection; it never ends by itself."""
        return follow(self.transport, "/v1/feed", token=self.api_key, last_id=after)

    # -------------------------------------------------------------------------------------

    _DEFAULT: Any = object()

    def _call(
        self, method: str, path: str, *, body: Any = None, params: dict[str, Any] | None = None,
        token: Any = _DEFAULT,
    ) -> httpx.Response:  # fmt: skip
        bearer = self.api_key if token is self._DEFAULT else token
        return self.transport.call(method, path, token=bearer, body=body, params=params)

    def _pages(
        self, path: str, params: dict[str, Any], kind: type[Any], items: str
    ) -> Iterator[Any]:
        def page(cursor: str | None) -> Any:
            response = self._call("GET", path, params={**params, "cursor": cursor})
            return self.transport.decode(response, kind)

        return by_cursor(page, items)
