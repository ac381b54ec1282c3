"""The store objects over the event store's Redis: one of each per process.

Every use of the event store's Redis, besides the event store itself (`service.store.event_store`)
and the live feeds (`service.live.feed`), goes through one of these objects; their keys are
spelled in `service.store.keys`. They are
built once, here, from the process's clients (`service.wiring.open_context`); the context
exposes each by name (``ctx.deadlines``, ``ctx.invites``, ...) and the job scheduler uses
the same instances. `tests/test_store_access.py` checks that no other module reaches for a
store's raw client.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from service.follow_ups.abandonment import ActivityIndex
from service.live.tickets import TicketStore
from service.lobby.invites import InviteStore
from service.lobby.public_lobby import PublicLobby
from service.notify.account_feed import AccountFeed
from service.notify.webhooks import WebhookStore
from service.play.bot_turns import BotSeals
from service.play.deadlines import DeadlineStore
from service.play.quota import GameQuota
from service.play.seat_tokens import SeatTokens
from service.play.stats import StatsStore
from service.store.event_store import AnyRedis
from service.views.summaries import GameSummaries


@dataclass
class Stores:
    webhooks: WebhookStore  # an API key's webhooks and their delivery attempts
    stats: StatsStore  # an API key's finished games' counts
    account_feed: AccountFeed
    summaries: GameSummaries  # the game list's
    quota: GameQuota
    deadlines: DeadlineStore  # the awaited turns and their deadlines
    invites: InviteStore
    tickets: TicketStore  # stream tickets
    lobby: PublicLobby
    seat_tokens: SeatTokens  # tokens granted after creation; who a caller is
    activity: ActivityIndex  # when each game last changed (the sweep's)
    bot_seals: BotSeals  # the bots' kept sealed choices

    @classmethod
    def over(
        cls, redis: AnyRedis, blocking: AnyRedis | None = None, max_active_games: int = 0
    ) -> Stores:
        """``blocking``: the client for the account feed's blocking reads (else
        ``redis``); ``max_active_games``: the quota's limit per API key (0: none)."""
        return cls(
            webhooks=WebhookStore(redis),
            stats=StatsStore(redis),
            account_feed=AccountFeed(redis, blocking),
            summaries=GameSummaries(redis),
            quota=GameQuota(redis, max_active_games),
            deadlines=DeadlineStore(redis),
            invites=InviteStore(redis),
            tickets=TicketStore(redis),
            lobby=PublicLobby(redis),
            seat_tokens=SeatTokens(redis),
            activity=ActivityIndex(redis),
            bot_seals=BotSeals(redis),
        )

    def parts(self) -> dict[str, Any]:
        """Each store by its name (to build a `Context` from them)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(Stores)}
