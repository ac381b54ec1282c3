"""A match: one game's state plus the game-independent parts of its event stream.

The match layer wraps a `Game` with what every game shares: the creation event, sealed
steps (commit–reveal), forfeits, the seats around the table and the recorded result. It is
pure like the games: it returns events and folds them; the service stores them.

One module per concern, from the bottom up:

- `events`: the match layer's own events (and `SeatSpec`, who plays a seat);
- `acts`: everything that can change a stream, as data;
- `state`: the folded `Match`, and the fold;
- `turns`: whom the match waits for, what a seat may do now, and a public move;
- `clocks`: time banks, from the log's times;
- `commit_reveal`: sealed steps; `forfeits`: missed deadlines and resignations;
  `seating`: claims, leaves, fills and the rematch; `endings`: result, abandon, abort;
- `engine`: `MatchEngine`, creation and one table from each act to its handler.

Everything the other layers use is importable from here: ``from domain.match import X``.
"""

from domain.match.acts import (
    Abandon,
    Abort,
    Act,
    ClaimSeat,
    CommitSeal,
    FillSeats,
    LeaveSeat,
    MakeMove,
    RecordResult,
    Rematch,
    Resign,
    RevealSeal,
    TimeOut,
    command_union,
)
from domain.match.engine import MatchEngine
from domain.match.events import (
    FINAL_EVENT_TYPES,
    MATCH_EVENT_TYPES,
    Clock,
    ClockFlagged,
    ExternalId,
    GameAbandoned,
    GameAborted,
    GameCreated,
    GameStarted,
    OnTimeOut,
    RematchCreated,
    ResultRecorded,
    SealCommitted,
    SealForfeited,
    SealRevealed,
    SeatClaimed,
    SeatLeft,
    SeatName,
    SeatResigned,
    SeatsFilled,
    SeatSpec,
    SeatType,
    TurnTimedOut,
    event_union,
)
from domain.match.forfeits import RESIGNED_LEVEL
from domain.match.state import Match
from domain.match.turns import AwaitingAction

__all__ = [
    "FINAL_EVENT_TYPES",
    "MATCH_EVENT_TYPES",
    "RESIGNED_LEVEL",
    "Abandon",
    "Abort",
    "Act",
    "AwaitingAction",
    "ClaimSeat",
    "Clock",
    "ClockFlagged",
    "CommitSeal",
    "ExternalId",
    "FillSeats",
    "GameAbandoned",
    "GameAborted",
    "GameCreated",
    "GameStarted",
    "LeaveSeat",
    "MakeMove",
    "Match",
    "MatchEngine",
    "OnTimeOut",
    "RecordResult",
    "Rematch",
    "RematchCreated",
    "Resign",
    "ResultRecorded",
    "RevealSeal",
    "SealCommitted",
    "SealForfeited",
    "SealRevealed",
    "SeatClaimed",
    "SeatLeft",
    "SeatName",
    "SeatResigned",
    "SeatSpec",
    "SeatType",
    "SeatsFilled",
    "TimeOut",
    "TurnTimedOut",
    "command_union",
    "event_union",
]
