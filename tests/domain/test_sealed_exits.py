"""No one gets stuck in a game: a commitment can be replaced until reveals open, a failed
reveal shows what the server hashed, a seat may resign (a bot plays it), and the creator
may abort. Each new act re-runs in `domain.verify` like every other."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import msgspec
import pytest

from domain import registry, sealed
from domain.errors import CommitmentError, GameOver, RevealMismatch, WrongPhase
from domain.match import (
    Abort,
    Act,
    CommitSeal,
    GameAborted,
    MakeMove,
    Match,
    MatchEngine,
    RecordResult,
    Resign,
    RevealSeal,
    SealCommitted,
    SealForfeited,
    SeatResigned,
    SeatSpec,
    event_union,
)
from domain.rng import seed_commitment
from domain.verify import ReplayDocument, ReplayRecord, VerificationError, verify

SEED = bytes(range(32))
GAME_ID = "g1"


class Recorder:
    """A match plus every event and the act behind each batch, as the store keeps them."""

    def __init__(self, humans: int = 3) -> None:
        game = registry.get("fbi")
        assert game is not None
        self.rules = MatchEngine(game)
        self.events: list[Any] = self.rules.create(GAME_ID, {}, [SeatSpec("human")] * humans, SEED)
        self.match: Match = self.rules.replay(self.events)
        self.acts: dict[int, Act] = {}

    def apply(self, act: Act) -> list[Any]:
        produced = self.rules.perform(self.match, act, SEED)
        self.acts[len(self.events)] = act
        for event in produced:
            self.match = self.rules.fold(self.match, event)
        self.events += produced
        return produced

    def to_sealed_step(self) -> str:
        for _ in range(100):
            actions = self.rules.awaiting(self.match)
            if actions[0].action == "commit":
                return actions[0].step
            seat = actions[0].seat
            self.apply(MakeMove(seat, self.first_legal(seat)))
        raise AssertionError("no sealed step")

    def first_legal(self, seat: int) -> dict[str, Any]:
        move: dict[str, Any] = msgspec.to_builtins(self.rules.legal(self.match, seat)[0])
        return move

    def commit(self, seat: int, step: str, move: dict[str, Any], salt: str) -> None:
        self.apply(CommitSeal(seat, sealed.commitment(GAME_ID, step, seat, move, salt), step))

    def replay(self) -> ReplayDocument:
        records = []
        for index, event in enumerate(self.events):
            act = msgspec.to_builtins(self.acts[index]) if index in self.acts else None
            records.append(ReplayRecord(index + 1, msgspec.to_builtins(event), act))
        document = ReplayDocument(GAME_ID, "fbi", SEED.hex(), seed_commitment(SEED), records)
        # Through JSON, as `stakeout verify` reads it.
        return msgspec.json.decode(msgspec.json.encode(document), type=ReplayDocument)

    def play_out(
        self, rng: random.Random, kept: dict[int, tuple[dict[str, Any], str]] | None = None
    ) -> None:
        """Every seat plays random legal moves (sealed steps committed and revealed);
        ``kept``: moves and salts already committed."""
        kept = {} if kept is None else kept
        for _ in range(5000):
            if self.rules.result(self.match) is not None:
                self.apply(RecordResult())
                return
            action = self.rules.awaiting(self.match)[0]
            seat = action.seat
            if action.action == "reveal":
                self.apply(RevealSeal(seat, *kept.pop(seat)))
                continue
            move = msgspec.to_builtins(rng.choice(self.rules.legal(self.match, seat)))
            if action.action == "move":
                self.apply(MakeMove(seat, move))
            else:
                kept[seat] = (move, sealed.new_salt())
                self.commit(seat, action.step, *kept[seat])
        raise AssertionError("the game did not end")


def test_a_seat_may_replace_its_commitment_until_reveals_open_and_the_last_one_counts() -> None:
    table = Recorder()
    step = table.to_sealed_step()
    move = table.first_legal(0)
    salt = "ab" * 16
    # The likeliest mistake: the move hashed with Python's default JSON spacing.
    wrong = sealed.commitment(GAME_ID, step, 0, {"x": 1}, salt)
    table.apply(CommitSeal(0, wrong, step))
    table.commit(0, step, move, salt)  # the replacement
    assert table.match.commits[0] == sealed.commitment(GAME_ID, step, 0, move, salt)
    committed = [e for e in table.events if isinstance(e, SealCommitted)]
    assert [e.seat for e in committed] == [0, 0]
    assert {a.seat: a.action for a in table.rules.awaiting(table.match)} == {
        1: "commit",
        2: "commit",
    }
    table.commit(1, step, table.first_legal(1), salt)
    table.commit(2, step, table.first_legal(2), salt)
    # Reveals are open: no commitment changes any more.
    with pytest.raises(CommitmentError, match="reveals have opened"):
        table.rules.perform(table.match, CommitSeal(0, wrong, step), SEED)
    # The replacement counts: the first commitment's move would not match.
    with pytest.raises(RevealMismatch):
        table.rules.perform(table.match, RevealSeal(0, {"x": 1}, salt), SEED)
    table.apply(RevealSeal(0, move, salt))
    assert 0 in table.match.reveals


def test_a_reveal_mismatch_carries_the_exact_preimage_the_server_hashed() -> None:
    table = Recorder()
    step = table.to_sealed_step()
    move = table.first_legal(0)
    salt = "ab" * 16
    spaced = json.dumps(move)  # Python's default separators: ", " and ": "
    client_hash = hashlib.sha256(
        f"sealed-v1|{GAME_ID}|{step}|0|{spaced}|{salt}".encode()
    ).hexdigest()
    table.apply(CommitSeal(0, client_hash, step))
    for seat in (1, 2):
        table.commit(seat, step, table.first_legal(seat), salt)
    with pytest.raises(RevealMismatch) as refused:
        table.rules.perform(table.match, RevealSeal(0, move, salt), SEED)
    canonical = json.dumps(move, sort_keys=True, separators=(",", ":"))
    assert refused.value.preimage == f"sealed-v1|{GAME_ID}|{step}|0|{canonical}|{salt}"
    assert refused.value.preimage != f"sealed-v1|{GAME_ID}|{step}|0|{spaced}|{salt}"
    assert hashlib.sha256(refused.value.preimage.encode()).hexdigest() == sealed.commitment(
        GAME_ID, step, 0, move, salt
    )


def test_resigning_in_a_sealed_step_forfeits_the_unrevealed_choice_and_a_bot_takes_the_seat() -> (
    None
):
    table = Recorder()
    step = table.to_sealed_step()
    salt = "ab" * 16
    moves = [table.first_legal(0), table.first_legal(1)]
    table.commit(0, step, moves[0], salt)
    table.commit(1, step, moves[1], salt)
    table.commit(2, step, {"type": "nonsense"}, salt)  # revealed, it could never match
    table.apply(RevealSeal(0, moves[0], salt))
    table.apply(RevealSeal(1, moves[1], salt))
    stuck = table.match.state
    produced = table.apply(Resign(2))
    assert produced[:2] == [SeatResigned(2, "random"), SealForfeited(2, step, "resigned")]
    assert table.match.state != stuck, "the step resolved with a bot's choice for seat 2"
    assert all(a.step != step for a in table.rules.awaiting(table.match))
    assert table.match.seats[2] == SeatSpec("bot", "random")
    assert table.match.resigned == [2]
    with pytest.raises(WrongPhase):  # a bot's seat cannot resign again
        table.rules.perform(table.match, Resign(2), SEED)


def test_resigning_before_committing_counts_as_committed_and_revealed() -> None:
    table = Recorder()
    table.to_sealed_step()
    table.apply(Resign(1))
    awaited = {(a.seat, a.action) for a in table.rules.awaiting(table.match)}
    assert awaited == {(0, "commit"), (2, "commit")}
    assert table.match.forfeited == {1: "resigned"}


def test_an_aborted_game_awaits_nobody_refuses_every_act_and_has_no_result() -> None:
    table = Recorder()
    seat = table.rules.awaiting(table.match)[0].seat
    move = table.first_legal(seat)
    assert table.apply(Abort()) == [GameAborted()]
    assert table.match.aborted
    assert table.rules.awaiting(table.match) == []
    assert table.rules.legal(table.match, seat) == []
    assert table.rules.result(table.match) is None
    for act in (Abort(), Resign(0), MakeMove(seat, move), CommitSeal(0, "0" * 64)):
        with pytest.raises(GameOver):
            table.rules.perform(table.match, act, SEED)
    with pytest.raises(WrongPhase):
        table.rules.perform(table.match, RecordResult(), SEED)


def test_a_finished_game_cannot_be_aborted_or_resigned() -> None:
    table = Recorder()
    table.play_out(random.Random(3))
    for act in (Abort(), Resign(0)):
        with pytest.raises(GameOver):
            table.rules.perform(table.match, act, SEED)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_games_with_replaced_commitments_and_resignations_verify(seed: int) -> None:
    rng = random.Random(seed)
    table = Recorder()
    step = table.to_sealed_step()
    table.commit(0, step, {"type": "a first try"}, "ab" * 16)
    kept = {0: (table.first_legal(0), "cd" * 16)}
    table.commit(0, step, *kept[0])  # replaced
    table.apply(Resign(rng.choice([1, 2])))
    # The resigned seat's turns are a bot's: here random legal moves, recorded as moves.
    table.play_out(rng, kept)
    verified = verify(table.replay())
    assert verified.status == "finished"
    assert verified.acts == len(table.acts)
    outcome = table.rules.result(table.match)
    assert outcome is not None
    assert (verified.scores, verified.winners) == (outcome.scores, outcome.winners)


def test_an_aborted_game_verifies_up_to_the_abort_and_a_tampered_one_fails() -> None:
    table = Recorder()
    step = table.to_sealed_step()
    table.commit(0, step, table.first_legal(0), "ab" * 16)
    table.apply(Abort())
    verified = verify(table.replay())
    assert (verified.status, verified.scores, verified.winners) == ("aborted", [], [])
    document = table.replay()
    records = list(document.events)
    last = records[-1]
    records[-1] = ReplayRecord(last.version, {"type": "seat.resigned", "seat": 1}, last.act)
    with pytest.raises(VerificationError, match=f"version {last.version}"):
        verify(msgspec.structs.replace(document, events=records))


def test_streams_written_before_these_events_still_load() -> None:
    """Stored events keep their shape: an old stream (no new event types) decodes and
    folds, and the new match fields start empty."""
    table = Recorder()
    table.to_sealed_step()
    stored = [msgspec.json.encode(e) for e in table.events]
    decoder = msgspec.json.Decoder(event_union(table.rules.game))
    match = table.rules.replay([decoder.decode(raw) for raw in stored])
    assert match == table.match
    assert (match.resigned, match.aborted) == ([], False)
    assert match.seats == [SeatSpec("human")] * 3
