"""The domain's errors, all in this module.

A `DomainError` is a refusal by the rules: nothing changed, and the service maps each
`code` to one problem type (its HTTP status included), in one place:
`service.http.problems.CATALOGUE`. The two at the end are not refusals of an act:
`RedactedEvent` (a redacted event folded into the true state) and `VerificationError` (a
replay that does not prove a fair game)."""

from __future__ import annotations


class DomainError(Exception):
    """A command was refused by the rules. Nothing was changed."""

    code = "illegal-move"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class IllegalMove(DomainError):
    """The move breaks a rule of the game."""

    code = "illegal-move"


class NotYourTurn(DomainError):
    """The seat is not among those the game is waiting for."""

    code = "not-your-turn"


class WrongPhase(DomainError):
    """The move's kind does not fit the current step of the game."""

    code = "wrong-phase"


class GameOver(DomainError):
    """The game has finished; it accepts no more moves."""

    code = "game-finished"


class InvalidOptions(DomainError):
    """Creation options or seats do not fit the game."""

    code = "invalid-options"


class SealedStepRequired(DomainError):
    """The current step is sealed: use commitments and reveals, not a plain move."""

    code = "sealed-step"


class CommitmentError(DomainError):
    """A commitment or reveal is refused (duplicate, out of order, or mismatching)."""

    code = "commitment-rejected"


class RevealMismatch(DomainError):
    """The revealed move and salt do not hash to the seat's commitment.

    ``preimage`` is the string the server hashed from the revealed move and salt (the
    seat's own move: shown to it alone), so a client sees how its hashing differs.
    """

    code = "reveal-mismatch"

    def __init__(self, detail: str, preimage: str | None = None) -> None:
        super().__init__(detail)
        self.preimage = preimage


class GameNotStarted(DomainError):
    """The game still waits for players (open seats): nobody may act in it yet."""

    code = "game-not-started"


class GameStartedAlready(DomainError):
    """Seats may be claimed, left or filled only while the game waits for players."""

    code = "game-started"


class SeatTaken(DomainError):
    """The open seat was claimed by someone else first."""

    code = "seat-taken"


class NotAnOpenSeat(DomainError):
    """Only a seat that was open at creation (claimed by invite) may be left."""

    code = "not-an-open-seat"


class NotEnded(DomainError):
    """The game has not ended yet (a rematch follows an ended game)."""

    code = "game-not-finished"


class RedactedEvent(ValueError):
    """A redacted event (a view of one) cannot be folded into the true state."""


class VerificationError(Exception):
    """The replay does not prove a fair game; the message says where and why."""
