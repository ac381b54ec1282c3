"""Who a seat says it is: one rule for every ``external_id`` and seat name the API takes.

An ``external_id`` is the client backend's own id of a player: the seats carry it, ratings,
leaderboards and players' histories are keyed by it, and ``/v1/players/{external_id}`` names
it in a URL. It is accepted at a game's creation, by a claim made with the game's API key,
in a matchmaking ticket, in the player URL and as the game list's and the leaderboard's
filters, and every one of these checks it here:

- it is never empty;
- it holds no ``/``: in a URL it would name another resource (``x/games`` is x's history);
- it holds no character that makes text show other than it reads: control characters (C0,
  DEL, C1: NUL, newline, BEL, ...), the line and paragraph separators, and the
  bidirectional formatting characters (marks, embeddings, overrides such as U+202E,
  isolates).

A seat name is shown beside it (views, leaderboards), so it gets the same character rule
(it may hold a ``/``, and may be empty). Lengths are the contract's (200 and 40).

Streams stored before this rule keep whatever they hold: the rule is checked where a
request brings an identity in, never where a stream is read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.match import SeatSpec
from service.play.errors import InvalidExternalId, InvalidName

# Text no external_id or name may hold (see the module docstring).
_UNSHOWABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def _unshowable(text: str) -> str | None:
    """The first character of ``text`` the rule refuses, as U+XXXX, or None."""
    found = _UNSHOWABLE.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


def check_external_id(external_id: str | None, where: str = "external_id") -> None:
    """Refuse (422 ``invalid-external-id``) an external_id the rule does not allow."""
    if external_id is None:
        return
    if not external_id:
        raise InvalidExternalId(f"{where}: an external_id is never empty (send null instead)")
    if "/" in external_id:
        raise InvalidExternalId(f"{where}: an external_id holds no '/'")
    bad = _unshowable(external_id)
    if bad is not None:
        raise InvalidExternalId(
            f"{where}: an external_id holds no control or bidirectional formatting "
            f"character ({bad})"
        )


def check_name(name: str | None, where: str = "name") -> None:
    """Refuse (422 ``invalid-name``) a seat name the character rule does not allow."""
    if name is None:
        return
    bad = _unshowable(name)
    if bad is not None:
        raise InvalidName(
            f"{where}: a seat name holds no control or bidirectional formatting character ({bad})"
        )


def check_seats(seats: Sequence[SeatSpec]) -> None:
    """Every seat's name and external_id, as a new game's request gives them."""
    for i, spec in enumerate(seats):
        check_name(spec.name, f"seats[{i}].name")
        check_external_id(spec.external_id, f"seats[{i}].external_id")
