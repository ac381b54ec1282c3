"""The Python SDK (clients/python) against a real `stakeout run`: every game kind played to
the end with sealed steps, a reveal mismatch, a retry after a killed connection (one act),
a 429 waited out, pages, tickets, players and leaderboards, webhooks and the account feed."""

from __future__ import annotations

import contextlib
import queue
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from service.ops.embedded import EmbeddedRedis
from tests.clients.conftest import Server
from tests.helpers import API_KEY, wait_for
from tests.processes import Processes, quick_options, service_env
from tests.receiver import Receiver
from tests.reply_dropper import ReplyDropper

from stakeout_client import (  # isort: skip (clients/python is on the path from conftest)
    RateLimited,
    Retry,
    RevealMismatch,
    Stakeout,
    bot,
    clock_at,
    human,
    models,
    open_seat,
    presence_message,
    presence_of,
    sealed,
    tag_of,
    verify_signature,
    with_presence,
)


@pytest.fixture
def api(stakeout_run: Server) -> Iterator[Stakeout]:
    with Stakeout(stakeout_run.base, API_KEY) as client:
        yield client


def play_to_the_end(seat: Any, rng: random.Random) -> dict[str, int]:
    """The ten-line client: wait for the turn, play a legal move, until the game is over.
    Counts the turns by action."""
    actions = {"move": 0, "commit": 0, "reveal": 0}
    while (turn := seat.wait_for_turn(timeout=60)) is not None:
        actions[turn.action] += 1
        seat.play(rng.choice(turn.legal) if turn.legal else None)
    return actions


@pytest.mark.parametrize("kind", ["fbi", "feds", "bonnie_clyde"])
def test_a_seat_plays_every_game_kind_to_the_end(api: Stakeout, kind: str) -> None:
    seats = [human("Ann", "sdk-ann"), bot("random"), bot("greedy")][
        : 2 if kind == "bonnie_clyde" else 3
    ]
    game = api.create_game(kind, seats=seats, options=quick_options(kind))
    seat = game.seat(0)
    actions = play_to_the_end(seat, random.Random(7))
    final = seat.view()
    assert isinstance(final, models.GameView)
    assert final.status == "finished"
    assert final.result is not None
    assert len(final.result.scores) == len(seats)
    assert final.awaiting == []
    if kind in {"fbi", "feds"}:  # sealed steps: each commit was revealed by play()
        assert actions["commit"] > 0
        sealed_events = [e.event for e in seat.events() if tag_of(e.event) == "seal.revealed"]
        assert len([e for e in sealed_events if e.seat == 0]) == actions["commit"]
    assert seat.pending is None
    assert seat.wait_for_turn(timeout=5) is None


@pytest.mark.parametrize("kind", ["fbi", "bonnie_clyde"])
def test_a_live_seat_awaits_its_turns_on_the_view_feed(stakeout_run: Server, kind: str) -> None:
    with Stakeout(stakeout_run.base, API_KEY) as api:
        game = api.create_game(kind, seats=[human(), bot()], options=quick_options(kind))
        seat = game.seat(0, live=True)
        actions = play_to_the_end(seat, random.Random(11))
        assert seat.live  # the feed did not end under it
        assert seat.view().status == "finished"
        acts = actions["move"] + 2 * actions["commit"] + actions["reveal"]  # play() reveals
        # One feed for the game: requests are the acts and a few more (the creation, the
        # feed's opening, the last view), never one per change of the game.
        assert api.requests <= acts + 5, (api.requests, actions)
        seat.close()


def test_two_sdk_seats_play_a_sealed_game_against_each_other(api: Stakeout) -> None:
    game = api.create_game("fbi", seats=[human(), human()])
    results: dict[int, dict[str, int]] = {}

    def play(number: int) -> None:
        results[number] = play_to_the_end(game.seat(number), random.Random(number))

    threads = [threading.Thread(target=play, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert game.wait_until_over(timeout=30).status == "finished"
    assert results[0]["commit"] == results[1]["commit"] > 0


def test_a_reveal_that_does_not_match_raises_with_the_servers_preimage(api: Stakeout) -> None:
    game = api.create_game("feds", seats=[human(), bot()])
    seat = game.seat(0)
    turn = seat.wait_for_turn()
    assert turn is not None
    assert turn.action == "commit"
    seat.commit(turn.legal[0])
    kept = seat.pending
    assert kept is not None
    reveal_turn = seat.wait_for_turn()
    assert reveal_turn is not None
    assert reveal_turn.action == "reveal"
    other = msgspec.to_builtins(turn.legal[1])
    with pytest.raises(RevealMismatch) as refused:
        seat.reveal(move=other, salt=kept.salt)
    problem = refused.value
    assert problem.status == 422
    assert problem.type == "urn:stakeout:problem:reveal-mismatch"
    assert problem.preimage == sealed.preimage(game.id, turn.step, 0, other, kept.salt)
    assert problem.fields["preimage"] == problem.preimage
    # Nothing changed, and the kept choice still reveals.
    assert seat.pending == kept
    accepted = seat.reveal()
    assert tag_of(accepted.events[0].event) == "seal.revealed"


def _header(request: bytes, name: bytes) -> bytes:
    line = next(x for x in request.split(b"\r\n") if x.lower().startswith(name.lower() + b":"))
    return line.split(b":", 1)[1].strip()


def test_an_act_whose_answer_was_lost_is_retried_with_its_key_and_applied_once(
    stakeout_run: Server,
) -> None:
    host, port = stakeout_run.base.removeprefix("http://").split(":")
    proxy = ReplyDropper((host, int(port)))
    url = f"http://127.0.0.1:{proxy.port}"
    retries: list[Retry] = []
    # One connection per request, so the proxy sees each request on a connection of its own.
    http = httpx.Client(base_url=url, timeout=10, limits=httpx.Limits(max_keepalive_connections=0))
    try:
        with Stakeout(url, API_KEY, http=http, on_retry=retries.append) as api:
            game = api.create_game("fbi", seats=[human(), bot()])
            seat = game.seat(0)
            turn = seat.wait_for_turn()
            assert turn is not None
            assert turn.action == "move"
            proxy.arm(b"/moves")
            accepted = seat.play(turn.legal[-1])
            released = [
                e for e in game.events()
                if tag_of(e.event) in {"fbi.card_released", "fbi.nothing_released"}
                and e.event.seat == 0
            ]  # fmt: skip
        moves = [
            r for r in proxy.requests if r.startswith(b"POST ") and b"/moves" in r.split(b"\r\n")[0]
        ]
        assert len(moves) == 2  # the lost one and its retry
        assert _header(moves[0], b"Idempotency-Key") == _header(moves[1], b"Idempotency-Key")
        assert [r.status for r in retries] == [None]  # a lost connection, retried once
        assert retries[0].idempotency_key == _header(moves[0], b"Idempotency-Key").decode()
        assert accepted.replayed is True  # the server's first answer, not a second act
        assert len(released) == 1
    finally:
        proxy.close()


def test_a_429_is_waited_out_as_retry_after_says(tmp_path: Path) -> None:
    """On an API process of its own with a low limit (60 a minute, bursts of 3)."""
    valkey = EmbeddedRedis(tmp_path / "valkey")
    processes = Processes(tmp_path)
    try:
        env = service_env(valkey.start(), STAKEOUT_RATE_LIMIT_PER_MINUTE="60")
        base = processes.api({**env, "STAKEOUT_RATE_LIMIT_BURST": "3"}).base
        retries: list[Retry] = []
        with Stakeout(base, API_KEY, on_retry=retries.append) as api:
            lists = [list(api.games()) for _ in range(6)]
            assert lists == [[]] * 6
            limited = [r for r in retries if r.status == 429]
            assert limited, retries
            assert all(1 <= r.wait <= 60 for r in limited)
            assert api.requests == 6 + len(retries)
        with Stakeout(base, API_KEY, max_retries=0) as impatient:
            with pytest.raises(RateLimited) as refused:  # noqa: PT012 (the 4th call is refused)
                for _ in range(10):
                    impatient.stats()
            assert refused.value.code == "too-many-requests"
            assert refused.value.retry_after is not None
            assert refused.value.retry_after >= 1
    finally:
        processes.close()
        valkey.stop()


def test_pages_are_followed_to_the_end(api: Stakeout) -> None:
    made = {api.create_game("fbi", seats=[human(), bot()], public=True).id for _ in range(5)}
    before = api.requests
    listed = [g.id for g in api.games(limit=2)]
    assert made <= set(listed)
    assert len(listed) == len(set(listed))  # nothing twice across pages
    assert api.requests - before == -(-len(listed) // 2) + (len(listed) % 2 == 0)
    assert made <= {g.id for g in api.lobby(game="fbi", limit=2)}
    game = api.game(next(iter(made)))
    small = [e.version for e in game.events(limit=3)]
    assert small == list(range(1, len(small) + 1))
    assert len(small) > 3
    assert small == [e.version for e in game.events(limit=500)]


def test_an_invite_is_claimed_and_a_rematch_given(api: Stakeout) -> None:
    game = api.create_game(
        "bonnie_clyde", seats=[human("Ann"), open_seat()], options=quick_options("bonnie_clyde")
    )
    code = game.invite(1)
    assert api.invite(code).seat == 1
    bo = api.claim_invite(code, name="Bo")
    ann = game.seat(0)
    rngs = {0: random.Random(1), 1: random.Random(2)}
    threads = [
        threading.Thread(target=play_to_the_end, args=(s, rngs[s.number])) for s in (ann, bo)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert game.wait_until_over(timeout=30).status == "finished"
    again = bo.rematch()
    assert again.game_id != game.id
    assert again.number == 0
    assert again.view().id == again.game_id


def test_tickets_players_and_leaderboards(api: Stakeout) -> None:
    tickets = [
        api.create_ticket("fbi", [2], player={"external_id": f"sdk-{who}", "name": who})
        for who in ("cy", "di")
    ]
    cy, di = (t.wait_for_match(timeout=60) for t in tickets)
    assert cy.game_id == di.game_id
    di.resign()
    play_to_the_end(cy, random.Random(3))
    profile = wait_for(lambda: (p := api.player("sdk-cy")).ratings and p, timeout=60)
    assert profile.external_id == "sdk-cy"
    board = list(api.leaderboard("fbi", around="sdk-cy", limit=5))
    assert "sdk-cy" in {e.external_id for e in board}
    # Past ``around``'s page, by cursor alone (the server refuses both at once).
    assert len(list(api.leaderboard("fbi", around="sdk-cy", limit=1))) >= 2
    assert cy.game_id in {g.id for g in api.player_games("sdk-cy", limit=1)}


def test_webhooks_are_signed_and_the_account_feed_resumes(api: Stakeout) -> None:
    receiver = Receiver()
    try:
        hook = api.register_webhook(receiver.url, ["game.started"])
        assert hook.id in {h.id for h in api.webhooks()}
        feed: queue.Queue[dict[str, Any]] = queue.Queue()
        everything: list[dict[str, Any]] = []  # what the live feed said, in its order
        first = api.feed()

        def read() -> None:
            with contextlib.suppress(httpx.HTTPError, RuntimeError):  # closed at the end
                for message in first:
                    everything.append(message)
                    feed.put(message)

        threading.Thread(target=read, daemon=True).start()
        _until_the_feed_records(api, feed)
        game = api.create_game("fbi", seats=[human(), bot()])
        started = _next_of(feed, "game.started", game.id)
        headers, body = wait_for(lambda: receiver.requests and receiver.requests[0], timeout=60)
        signature = headers["Stakeout-Signature"]
        assert verify_signature(hook.secret, signature, body)
        assert not verify_signature(hook.secret, signature, body + b" ")
        assert not verify_signature("another-secret", signature, body)
        assert not verify_signature(hook.secret, signature, body, now=time.time() + 3600)
        assert wait_for(lambda: list(api.deliveries(hook.id, limit=1)), timeout=30)
        # Resuming from a cursor gives what followed it, nothing before: the same entries
        # as the live feed after it (other games' included), up to this game's next one.
        game.seat(0).resign()
        cursors = [m["cursor"] for m in everything]
        start = cursors.index(started["cursor"])
        followed = wait_for(
            lambda: next(
                (
                    cursors_after(everything, start, i)
                    for i in range(start + 1, len(everything))
                    if everything[i]["game_id"] == game.id
                ),
                None,
            ),
            timeout=60,
        )
        resumed = api.feed(after=started["cursor"])
        assert [next(resumed)["cursor"] for _ in followed] == followed
        api.delete_webhook(hook.id)
        assert hook.id not in {h.id for h in api.webhooks()}
    finally:
        receiver.close()


def cursors_after(messages: list[dict[str, Any]], start: int, end: int) -> list[str]:
    """The cursors of ``messages`` after index ``start``, up to and with ``end``."""
    return [m["cursor"] for m in messages[start + 1 : end + 1]]


def _until_the_feed_records(api: Stakeout, feed: queue.Queue[dict[str, Any]]) -> None:
    """The feed starts when its first opening reaches the server: probe games are made
    until one shows up in it."""
    for _ in range(20):
        probe = api.create_game("fbi", seats=[bot(), bot()])
        try:
            _next_of(feed, "game.started", probe.id, timeout=3)
            return
        except (AssertionError, queue.Empty):
            continue
    raise AssertionError("the account feed never started")


def _next_of(
    feed: queue.Queue[dict[str, Any]], kind: str, game_id: str, timeout: float = 60
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = feed.get(timeout=max(0.1, deadline - time.monotonic()))
        if message.get("kind") == kind and message.get("game_id") == game_id:
            return message
    raise AssertionError(f"no {kind} for {game_id} in the feed")


def test_a_seats_clock_counts_down_from_the_views_server_time(api: Stakeout) -> None:
    clock = {"initial_seconds": 300, "increment_seconds": 0, "on_time_out": "bot_seat"}
    game = api.create_game("fbi", seats=[human(), bot()], clock=clock)
    seat = game.seat(0)
    turn = seat.wait_for_turn()  # the seat awaited: its clock runs
    assert turn is not None
    view = turn.view
    assert not isinstance(view.server_time_ms, msgspec.UnsetType)
    assert view.server_time_ms > 0
    bank = view.seats[0].clock
    assert bank is not None
    assert not isinstance(bank, msgspec.UnsetType)
    assert bank.running
    assert 200_000 < bank.remaining_ms <= 300_000
    # By the server's clock: a second after the view, a second less; never below zero.
    later = clock_at(view, 0, view.server_time_ms + 1000)
    assert later is not None
    assert later.remaining_ms == bank.remaining_ms - 1000
    much_later = clock_at(view, 0, view.server_time_ms + 10**9)
    assert much_later is not None
    assert much_later.remaining_ms == 0
    at_view = clock_at(view, 0)
    assert at_view is not None
    assert at_view.flag_at_ms == view.server_time_ms + bank.remaining_ms
    awaited = next(a for a in view.awaiting if a.seat == 0)
    assert awaited.deadline == view.server_time_ms + bank.remaining_ms
    now = seat.clock()
    assert now is not None
    assert now.remaining_ms <= bank.remaining_ms
    assert (seat.server_now_ms() or 0) >= view.server_time_ms
    game.abort()


def test_presence_is_in_views_and_comes_as_its_own_message(api: Stakeout) -> None:
    game = api.create_game("fbi", seats=[human(), human()])
    messages: queue.Queue[dict[str, Any]] = queue.Queue()
    feed = game.stream("events")

    def read() -> None:
        with contextlib.suppress(httpx.HTTPError, RuntimeError):  # closed at the end
            for message in feed:
                messages.put(message)

    threading.Thread(target=read, daemon=True).start()
    assert messages.get(timeout=30)["kind"] == "event"  # the feed is open: its backlog came
    ann = game.seat(0)
    ann.view()
    first, second = ann.presence(0), ann.presence(1)
    assert first is not None
    assert first.status == "online"
    assert second is not None
    assert second.status == "never"
    game.seat(1).view()
    deadline = time.monotonic() + 30
    while True:
        news = presence_message(messages.get(timeout=max(0.1, deadline - time.monotonic())))
        if (
            news is not None
            and news.seats[1].presence
            and news.seats[1].presence.status == "online"
        ):
            break
    assert [s.seat for s in news.seats] == [0, 1]
    refreshed = with_presence(ann.last_view, news)
    refreshed_presence = presence_of(refreshed, 1)
    assert refreshed_presence is not None
    assert refreshed_presence.status == "online"
    game.abort()
