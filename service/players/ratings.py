"""Ratings: who is rated in a finished game, and the Weng–Lin update from its placements.

The model is openskill's Plackett–Luce (Weng–Lin, its defaults: μ 25, σ 25/3, β 25/6,
τ 25/300), one rating per rated identity and game kind within an API key:

- A game is rated once its result is recorded (played to the end); an abandoned or aborted
  game has no result and is never rated.
- Each seat is placed as the result says (`Outcome.places`: 1 for the winners, ties share a
  place), but for a seat whose player resigned (issue 35): it is placed below every seat
  whose player did not, wherever the bot that took it over finished, and its player is
  rated for it (`rated_places`). Such seats share the last place. The game's own result
  keeps what was played; this order is what ratings, wins and the players' histories
  count. A seat that missed a turn deadline (a bot moved for it once) is not demoted. A
  seat whose clock ran out in a game whose clock says ``lose`` is placed with the resigned
  (issue 34); with ``bot_turn`` or ``bot_seat`` it keeps the place its bot finished at.
- A seat with an ``external_id`` rates that player; a bot seat (not a resigned one) rates
  its level (``greedy`` in fbi is one identity of the API key, however many seats it had),
  so a new player's first games against bots move the ratings of both; any other seat (a
  person without an external id, a resigned seat without one) is not rated.
- An identity at several seats of one game (three greedy bots) gets the mean of its
  seats' updates, and counts the game once.
- A game with fewer than two rated identities changes nothing.

A rating is shown as an ordinal on a familiar scale: ``1000 + 24 × (μ − 3σ)``, so a new
identity starts at 1000 and an average one that has played enough sits near 1500; it is
provisional until `PROVISIONAL_GAMES` rated games.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from statistics import fmean

import msgspec
from openskill.models import PlackettLuce

from domain.match import Match, SeatSpec

MODEL = PlackettLuce()
DISPLAY_BASE = 1000.0
DISPLAY_SCALE = 24.0
PROVISIONAL_GAMES = 10
PLAYER_PREFIX = "p:"  # the identity of a player: p:<external id>
BOT_PREFIX = "b:"  # of a bot level: b:<level>


class Rating(msgspec.Struct, frozen=True):
    """One identity's rating in one game kind, as stored."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0  # games it finished in first place (shared or not)
    name: str | None = None  # the seat name it last played under
    last_ms: int = 0  # when its last rated game was recorded

    @property
    def display(self) -> int:
        return round(display_value(self.mu, self.sigma))

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def display_value(mu: float, sigma: float) -> float:
    """The ordinal on the shown scale (exact; the leaderboard sorts by it)."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal(3.0, DISPLAY_SCALE, DISPLAY_BASE))


def fresh() -> Rating:
    return Rating(mu=MODEL.mu, sigma=MODEL.sigma)


def player_identity(external_id: str) -> str:
    return PLAYER_PREFIX + external_id


def bot_identity(level: str) -> str:
    return BOT_PREFIX + level


def seat_identity(seat: int, spec: SeatSpec, match: Match) -> str | None:
    """Who a seat rates (see the module docstring), or None."""
    if spec.external_id is not None:
        return player_identity(spec.external_id)
    taken_over = seat in match.resigned or seat in match.flagged  # a person's seat still
    if spec.type == "bot" and spec.level is not None and not taken_over:
        return bot_identity(spec.level)
    return None


def rated_places(places: Sequence[int], match: Match) -> list[int]:
    """Each seat's place as ratings count it: ``places`` (the result's, 1 for the winners,
    ties share a place and skip the next: 1, 1, 3) with every resigned seat below every
    other, the resigned ones tied (a resignation is a loss, whatever the bot made of it).
    A seat that lost on time (a clock's ``lose``) is placed there too (issue 34)."""
    gave_up = set(match.resigned) | set(match.lost_on_time)
    order = [(i in gave_up, 0 if i in gave_up else place) for i, place in enumerate(places)]
    return [1 + sum(other < mine for other in order) for mine in order]


def identities(match: Match) -> list[str | None]:
    """Each seat's rated identity (None: not rated)."""
    return [seat_identity(i, spec, match) for i, spec in enumerate(match.seats)]


def updated(
    current: Mapping[str, Rating],
    seats: Sequence[str | None],
    places: Sequence[int],
    names: Sequence[str | None],
    at_ms: int,
) -> dict[str, Rating]:
    """The new ratings of the game's rated identities (``current``: each one's rating
    before, a fresh one when it has none), from one openskill update over the rated seats
    as teams of one, ranked by place."""
    rated = [i for i, identity in enumerate(seats) if identity is not None]
    if len({seats[i] for i in rated}) < 2:
        return {}
    before = {seats[i]: current.get(seats[i] or "") or fresh() for i in rated}
    teams = [[MODEL.rating(mu=before[seats[i]].mu, sigma=before[seats[i]].sigma)] for i in rated]
    after = MODEL.rate(teams, ranks=[float(places[i]) for i in rated])
    moved: dict[str, list[tuple[float, float]]] = defaultdict(list)
    first: dict[str, bool] = defaultdict(bool)
    name: dict[str, str | None] = {}
    for i, team in zip(rated, after, strict=True):
        identity = seats[i] or ""
        moved[identity].append((team[0].mu, team[0].sigma))
        first[identity] |= places[i] == 1
        name[identity] = names[i] if names[i] is not None else name.get(identity)
    out: dict[str, Rating] = {}
    for identity, values in moved.items():
        old = before[identity]
        out[identity] = Rating(
            mu=fmean(mu for mu, _ in values),
            sigma=fmean(sigma for _, sigma in values),
            games=old.games + 1,
            wins=old.wins + int(first[identity]),
            name=name[identity] or old.name,
            last_ms=at_ms,
        )
    return out
