"""Sealed steps: commit, then reveal, then the game decides every choice at once.

A game marks simultaneous secret choices by listing seats in ``pending`` with
``sealed=True``. Each of those seats commits a hash, then (once every commitment is in)
reveals its move and salt. Nothing of a revealed move reaches anyone else until the last
reveal arrives; then the moves go to ``Game.decide`` in seat order and the game's own
(public or redacted) events tell the table what was chosen. A move that proves illegal
at reveal forfeits the choice: a random legal move is chosen for the seat and a
`SealForfeited` event says so.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain import sealed
from domain.engine import AnyGame
from domain.errors import CommitmentError, DomainError, RevealMismatch, WrongPhase
from domain.match.acts import CommitSeal, RevealSeal, command_union
from domain.match.events import SealCommitted, SealForfeited, SealRevealed
from domain.match.state import Match, decision_rng, forfeits, sealed_progress
from domain.match.turns import pending_for, sealed_seats
from domain.rng import Rng


def commit(game: AnyGame, match: Match, act: CommitSeal, seed: bytes) -> list[Any]:
    """``act.seat`` posts (or replaces) its commitment in the current sealed step."""
    seat = act.seat
    p = pending_for(game, match, seat)
    if not p.sealed:
        raise WrongPhase(f"step {p.step} is not sealed: post a move")
    if act.step is not None and act.step != p.step:
        raise CommitmentError(f"the current step is {p.step}, not {act.step}")
    # Until reveals open a seat may replace its commitment (the last one counts): a
    # client that hashed the wrong bytes can still put it right.
    committed = sealed_progress(match, p.step)[0]
    if seat in forfeits(match, p.step):
        raise CommitmentError(f"seat {seat} forfeited its choice in step {p.step}")
    if seat in committed and all(s in committed for s in sealed_seats(game, match)):
        raise CommitmentError(
            f"reveals have opened for step {p.step}: the commitment can no longer change"
        )
    return [SealCommitted(seat=seat, step=p.step, commitment=act.commitment)]


def reveal(game: AnyGame, match: Match, act: RevealSeal, seed: bytes) -> list[Any]:
    """``act.seat`` reveals; the last reveal of the step resolves it."""
    seat = act.seat
    p = pending_for(game, match, seat)
    if not p.sealed:
        raise WrongPhase(f"step {p.step} is not sealed: post a move")
    seats = sealed_seats(game, match)
    committed, revealed = sealed_progress(match, p.step)
    commits = match.commits if match.seal_step == p.step else {}
    if seat not in commits:
        raise CommitmentError(f"seat {seat} has not committed for step {p.step}")
    missing = [s for s in seats if s not in committed]
    if missing:
        raise CommitmentError(f"reveals open once every seat has committed; waiting for {missing}")
    if seat in revealed:
        raise CommitmentError(f"seat {seat} has already revealed for step {p.step}")
    _check_hash(match, p.step, commits[seat], act)
    events: list[Any] = [SealRevealed(seat=seat, step=p.step, move=act.move, salt=act.salt)]
    if all(s in revealed or s == seat for s in seats):
        reveals = {**match.reveals, seat: events[0]}
        events += resolve(game, match, p.step, reveals, forfeits(match, p.step), seed)
    return events


def _check_hash(match: Match, step: str, commitment: str, act: RevealSeal) -> None:
    if not sealed.salt_is_valid(act.salt):
        raise RevealMismatch("the salt must be at least 16 bytes in hex")
    if not sealed.matches(commitment, match.game_id, step, act.seat, act.move, act.salt):
        text = sealed.preimage(match.game_id, step, act.seat, act.move, act.salt)
        raise RevealMismatch(
            "the move and salt do not hash to the commitment; `preimage` is the exact "
            "string the server hashed (UTF-8, SHA-256, lowercase hex)",
            preimage=text,
        )


def resolve(
    game: AnyGame,
    match: Match,
    step: str,
    reveals: dict[int, SealRevealed],
    forfeited: dict[int, str],
    seed: bytes,
) -> list[Any]:
    """The events of sealed ``step`` once every seat has revealed or forfeited."""
    # The moves were chosen against the same table, so they are applied in seat order
    # against the state as it evolves; games keep sealed choices independent of each
    # other, so the order never changes their legality.
    rng = decision_rng(seed, match.version)
    state = match.state
    out: list[Any] = []
    for seat in sorted(sealed_seats(game, match)):
        if seat in forfeited:  # already recorded as forfeited: a bot's choice stands in
            fallback = rng.fork(f"forfeit{seat}").choice(game.legal(state, seat))
            events = game.decide(state, seat, fallback, rng.fork(f"seat{seat}"))
        else:
            events = _revealed_choice(game, state, seat, step, reveals[seat], rng)
        for event in events:
            if not isinstance(event, SealForfeited):
                state = game.evolve(state, event)
        out += events
    return out


def _revealed_choice(
    game: AnyGame, state: Any, seat: int, step: str, revealed: SealRevealed, rng: Rng
) -> list[Any]:
    """The events of a revealed move; an illegal one is forfeited and a random one stands in."""
    try:
        command = msgspec.convert(revealed.move, command_union(game))
        return game.decide(state, seat, command, rng.fork(f"seat{seat}"))
    except (msgspec.ValidationError, DomainError) as exc:
        reason = exc.detail if isinstance(exc, DomainError) else f"invalid move: {exc}"
        fallback = rng.fork(f"forfeit{seat}").choice(game.legal(state, seat))
        return [
            SealForfeited(seat=seat, step=step, reason=reason),
            *game.decide(state, seat, fallback, rng.fork(f"seat{seat}")),
        ]
