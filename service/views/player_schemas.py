"""Wire types of players (issue 30): ratings, a player's page and the leaderboards.
Described in code (field metadata); the rating policy is in service/players/ratings.py."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.descriptions import GAME_NAME
from domain.engine import BotLevel
from service.players.rating_store import Ranked
from service.players.ratings import BOT_PREFIX, PLAYER_PREFIX, PROVISIONAL_GAMES, Rating


def _d(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


RATING = (
    "The shown rating: a conservative ordinal, 1000 + 24 × (mu − 3 × sigma), rounded. A new "
    "player starts at 1000 and climbs as the system grows sure of it (an average player who "
    "has played enough sits near 1500)."
)
MU = "The estimate of skill (Weng–Lin, Plackett–Luce; 25 at first)."
SIGMA = "The uncertainty of mu (25/3 at first; it shrinks with every rated game)."
GAMES = "Rated games played in this game kind."
WINS = "Rated games finished in first place (a shared first place counts)."
PROVISIONAL = f"True until {PROVISIONAL_GAMES} rated games: the rating may still move a lot."
RANK = "The place on this game's leaderboard of the API key (1 = the highest rating)."


class RatingInfo(msgspec.Struct, frozen=True):
    """A player's rating and results in one game kind."""

    game: Annotated[str, _d(GAME_NAME)]
    rating: Annotated[int, _d(RATING)]
    mu: Annotated[float, _d(MU)]
    sigma: Annotated[float, _d(SIGMA)]
    games: Annotated[int, _d(GAMES)]
    wins: Annotated[int, _d(WINS)]
    provisional: Annotated[bool, _d(PROVISIONAL)]
    rank: Annotated[int, _d(RANK)]


class PlayerProfile(msgspec.Struct, frozen=True):
    """A player of the API key's games (its external_id): ratings and results per game
    kind. A player who has no rated game yet has no ratings (an empty list)."""

    external_id: Annotated[str, _d("The player: the external_id its seats carry.")]
    name: Annotated[
        str | None, _d("The seat name of its latest rated game, or null if it had none.")
    ]
    ratings: Annotated[
        list[RatingInfo], _d("One entry per game kind it has a rated game in, by game name.")
    ]


class LeaderboardEntry(msgspec.Struct, frozen=True):
    """One place on a leaderboard: a player (external_id) or a bot level (bot)."""

    rank: Annotated[int, _d(RANK)]
    external_id: Annotated[str | None, _d("The player's external_id; null for a bot level.")]
    bot: Annotated[
        BotLevel | None,
        _d(
            "The bot level this entry rates (every bot of that level in this game kind, "
            "rated like a player); null for a player."
        ),
    ]
    name: Annotated[str | None, _d("The seat name of its latest rated game, or null.")]
    rating: Annotated[int, _d(RATING)]
    mu: Annotated[float, _d(MU)]
    sigma: Annotated[float, _d(SIGMA)]
    games: Annotated[int, _d(GAMES)]
    wins: Annotated[int, _d(WINS)]
    provisional: Annotated[bool, _d(PROVISIONAL)]


class LeaderboardPage(msgspec.Struct, frozen=True):
    """A page of one game kind's leaderboard of the API key, highest rating first."""

    game: Annotated[str, _d(GAME_NAME)]
    total: Annotated[int, _d("How many players and bot levels the leaderboard holds.")]
    entries: Annotated[list[LeaderboardEntry], _d("The entries of this page, by rank.")]
    next_cursor: Annotated[
        str | None,
        _d(
            "Pass it as `cursor` for the next page (it is the next page's first rank, "
            "less one); null on the last page."
        ),
    ]


def rating_info(game: str, rating: Rating, rank: int) -> RatingInfo:
    return RatingInfo(
        game=game,
        rating=rating.display,
        mu=rating.mu,
        sigma=rating.sigma,
        games=rating.games,
        wins=rating.wins,
        provisional=rating.provisional,
        rank=rank,
    )


def leaderboard_entry(ranked: Ranked) -> LeaderboardEntry:
    identity, rating = ranked.identity, ranked.rating
    player = identity.removeprefix(PLAYER_PREFIX) if identity.startswith(PLAYER_PREFIX) else None
    bot = identity.removeprefix(BOT_PREFIX) if identity.startswith(BOT_PREFIX) else None
    return LeaderboardEntry(
        rank=ranked.rank,
        external_id=player,
        bot=bot,  # type: ignore[arg-type]  # a level the store wrote
        name=rating.name,
        rating=rating.display,
        mu=rating.mu,
        sigma=rating.sigma,
        games=rating.games,
        wins=rating.wins,
        provisional=rating.provisional,
    )
