"""The process's objects, built once from `Settings`: the API's and the workers' one wiring.

Nothing connects at import time; `open_wiring` builds everything and closes the clients on
exit. No function takes the whole wiring: the app hands each controller the few objects it
names (the wiring's fields as Litestar's dependencies, service/app.py), and each worker job
picks the ones it uses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from redis.asyncio.cluster import RedisCluster

from service.follow_ups.abandonment import ActivityIndex
from service.follow_ups.archiving import ArchiveDue, Archiver, Leftovers
from service.follow_ups.follow_ups import ChangeRecords, FollowUp, Notifiers
from service.follow_ups.jobs import JobQueue
from service.follow_ups.sweep import Sweep
from service.live.feed import BLOCK_MS, LiveFeed
from service.live.game_feeds import GameFeeds
from service.live.presence import PresenceWatches
from service.live.tickets import TicketStore
from service.lobby.game_maker import GameMaker
from service.lobby.invites import InviteStore
from service.lobby.public_lobby import PublicLobby
from service.lobby.rematch import Rematches
from service.matchmaking.ticket_desk import TicketDesk
from service.matchmaking.tickets import MatchTickets, TicketCaps
from service.notify.account_feed import AccountFeed
from service.notify.delivery_queue import DeliveryQueue
from service.notify.webhooks import WebhookStore
from service.play.access import Access, ApiKeys, SeatTokens
from service.play.away import AwayTurns
from service.play.bot_turns import BotSeals, BotTurns
from service.play.deadlines import DeadlineStore
from service.play.game_service import GameService
from service.play.presence import PresenceTracker
from service.play.quota import GameQuota
from service.play.snapshots import Snapshots
from service.play.stats import StatsStore
from service.players.player_games import PlayerGames
from service.players.rating_store import RatingStore
from service.seats.answers import Answers
from service.settings import Settings
from service.store.clients import REQUEST_TIMEOUT_SECONDS, AnyRedis, event_redis, queue_redis
from service.store.event_store import EventStore
from service.store.remains import GameRemains
from service.views.game_list import GameList
from service.views.summaries import GameSummaries, kept_record


@dataclass
class Stores:
    """The store objects over the event store's Redis, one of each per process.

    Every use of the event store's Redis, besides the event store itself and the live
    readers, goes through one of these; their keys are spelled in `service.store.keys`.
    `tests/test_store_access.py` checks that no other module reaches for a raw client."""

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
    archive_due: ArchiveDue  # when each ended game's archive is due (the sweep's)
    bot_seals: BotSeals  # the bots' kept sealed choices
    ratings: RatingStore  # players' and bot levels' ratings, and the leaderboards
    player_games: PlayerGames  # each player's games
    match_tickets: MatchTickets  # matchmaking tickets (and the matcher's lease)
    presence: PresenceTracker  # who is at each table (not in the event log)
    remains: GameRemains  # archived games' entries in their API key's sets, to prune

    @classmethod
    def over(
        cls,
        redis: AnyRedis,
        blocking: AnyRedis,
        max_active_games: int,
        events: EventStore,
        remains_grace_ms: int,
        presence_seconds: int = 30,
    ) -> Stores:
        """``blocking``: the client for the account feed's blocking reads;
        ``max_active_games``: the quota's limit per API key (0: none); ``events``: the
        event store (archived games' seat tokens are read from their archives);
        ``remains_grace_ms``: how long after its archive a game's entries are pruned;
        ``presence_seconds``: a seat's online window after a request (0: presence off)."""
        return cls(
            webhooks=WebhookStore(redis),
            stats=StatsStore(redis),
            account_feed=AccountFeed(redis, blocking),
            summaries=GameSummaries(redis, events),
            quota=GameQuota(redis, max_active_games),
            deadlines=DeadlineStore(redis),
            invites=InviteStore(redis),
            tickets=TicketStore(redis),
            lobby=PublicLobby(redis),
            seat_tokens=SeatTokens(redis, events),
            activity=ActivityIndex(redis),
            archive_due=ArchiveDue(redis),
            bot_seals=BotSeals(redis),
            ratings=RatingStore(redis),
            player_games=PlayerGames(redis),
            match_tickets=MatchTickets(redis),
            presence=PresenceTracker(redis, presence_seconds),
            remains=GameRemains(redis, remains_grace_ms),
        )


@dataclass
class Wiring(Stores):
    """The process's objects; each handler and job is handed the ones it names."""

    settings: Settings
    store: EventStore
    games: GameService
    api_keys: ApiKeys
    access: Access  # who a caller is, and what it may do with a game
    live: LiveFeed  # the shared readers of game streams
    feeds: GameFeeds  # a game's live feeds
    presence_watches: PresenceWatches  # presence changes, to the feeds
    answers: Answers  # the view and act answers
    maker: GameMaker
    rematches: Rematches
    game_list: GameList
    jobs: JobQueue
    deliveries: DeliveryQueue  # webhook deliveries' queue (the follow-ups' side)
    follow_up: FollowUp
    sweep: Sweep
    bots: BotTurns
    away: AwayTurns  # away seats' turns (service/play/away.py)
    ticket_desk: TicketDesk  # opening, reading and cancelling matchmaking tickets
    archiver: Archiver  # archiving games that are over, restoring them


async def _clients(settings: Settings, timeout: float) -> tuple[AnyRedis, AnyRedis]:
    """The event store's client and the one for blocking reads."""
    client = event_redis(settings, timeout=timeout)
    blocking = event_redis(settings, blocking_ms=BLOCK_MS, timeout=timeout)
    if isinstance(client, RedisCluster) and isinstance(blocking, RedisCluster):
        # Learn the slot map before the first command: otherwise concurrent first commands
        # go to random masters, collect MOVED replies and lose connections in the reshuffle.
        await client.initialize()
        await blocking.initialize()
    return client, blocking


@asynccontextmanager
async def open_wiring(
    settings: Settings, timeout: float = REQUEST_TIMEOUT_SECONDS
) -> AsyncIterator[Wiring]:
    """``timeout``: the Redis clients' command timeout (short on the request path)."""
    client, blocking = await _clients(settings, timeout)
    wiring = _compose(settings, client, blocking, timeout)
    try:
        yield wiring
    finally:
        await _close(wiring, client, blocking)


def _compose(settings: Settings, client: AnyRedis, blocking: AnyRedis, timeout: float) -> Wiring:
    """Every object of the process, over the event store's two clients (nothing connects)."""
    store = EventStore(
        client, settings.idempotency_seconds * 1000, settings.archive_ttl_seconds * 1000
    )
    grace_ms, quota = settings.remains_grace_seconds * 1000, settings.max_active_games
    stores = Stores.over(client, blocking, quota, store, grace_ms, settings.presence_seconds)
    games = GameService(store, settings.game_cache_size, kept_record)
    live = LiveFeed(blocking, store)
    api_keys = ApiKeys(settings.api_keys)
    access = Access(api_keys, stores.seat_tokens)
    watches = PresenceWatches(games, stores.presence)
    away = AwayTurns(games, stores.presence)
    jobs = JobQueue(lambda: queue_redis(settings, timeout), settings.job_result_ttl_seconds)
    deliveries = DeliveryQueue(lambda: queue_redis(settings, timeout))
    return Wiring(
        **{f.name: getattr(stores, f.name) for f in dataclasses.fields(Stores)},
        settings=settings,
        store=store,
        games=games,
        api_keys=api_keys,
        access=access,
        live=live,
        feeds=GameFeeds(games, live, stores.deadlines, watches),
        presence_watches=watches,
        answers=Answers(games, access, stores.deadlines, live, stores.presence),
        maker=GameMaker(games, stores.quota, stores.invites, stores.lobby),
        rematches=Rematches(games, stores.quota, stores.lobby, stores.seat_tokens),
        game_list=GameList(store, stores.summaries, games, stores.player_games),
        jobs=jobs,
        deliveries=deliveries,
        follow_up=_follow_up(settings, store, stores, jobs, deliveries, away),
        sweep=Sweep(games, store, stores.activity, stores.remains),
        bots=BotTurns(games, stores.bot_seals, settings.bot_budget),
        away=away,
        ticket_desk=TicketDesk(
            stores.match_tickets,
            stores.ratings,
            api_keys,
            TicketCaps(settings.max_waiting_tickets, settings.max_player_tickets),
        ),
        archiver=_archiver(settings, games, store, stores),
    )


def _follow_up(
    settings: Settings,
    store: EventStore,
    stores: Stores,
    jobs: JobQueue,
    deliveries: DeliveryQueue,
    away: AwayTurns,
) -> FollowUp:
    """What follows a stored change: the records it updates, its jobs and notifications."""
    notifiers = Notifiers(stores.webhooks, deliveries, stores.account_feed)
    records = ChangeRecords(
        stores.deadlines,
        stores.activity,
        players=stores.player_games,
        archive_due=stores.archive_due,
        snapshots=Snapshots(store, settings.snapshot_every),
        away=away,
        presence=stores.presence,
    )
    return FollowUp(jobs, store, notifiers, records, settings.archive_after_seconds * 1000)


def _archiver(
    settings: Settings, games: GameService, store: EventStore, stores: Stores
) -> Archiver:
    leftovers = Leftovers(
        stores.activity, stores.lobby, stores.quota, stores.invites, stores.remains
    )
    after_ms = settings.archive_after_seconds * 1000
    return Archiver(games, store, leftovers, after_ms, stores.archive_due)


async def _close(wiring: Wiring, client: AnyRedis, blocking: AnyRedis) -> None:
    await wiring.presence_watches.close()
    await wiring.presence.close()
    await wiring.live.close()
    await blocking.aclose()
    wiring.store.close()
    await client.aclose()
    wiring.jobs.close()
    wiring.deliveries.close()


__all__ = ["Stores", "Wiring", "open_wiring"]
