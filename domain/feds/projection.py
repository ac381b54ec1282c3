"""A bot's estimate of the final scores, from what its seat can see.

The board is reduced to, per location, the strengths lined up there (field agents, then the
mole, then step-1 choices not deployed yet; closest to the location first) and the criminals.
A card the bot cannot see counts as the average of its owner's unseen cards. The projection
busts every location as things stand: players pick, strongest first, the colour that adds
most to their jail; the Officer picks in its fixed order. Each location is projected from the
jails as they are now, so one location can be re-projected alone when only it changes.
"""

from __future__ import annotations

from typing import NamedTuple

from domain.feds.cards import (
    AGENTS,
    COLOURS,
    LOCATION_INDEX,
    OFFICER_COLOUR_ORDER,
    SCORE_TABLE,
    SCORED_COLOURS,
    STRENGTH,
    UTILITY_TOKENS,
    Agent,
    Criminals,
)
from domain.feds.views import FedsView

Owner = int | None
Counts = list[int]  # criminals in `COLOURS` order
GRAY = COLOURS.index("gray")
_OFFICER_ORDER = [COLOURS.index(c) for c in OFFICER_COLOUR_ORDER]
_TABLES = [SCORE_TABLE[c] for c in SCORED_COLOURS]


def counts_of(criminals: Criminals) -> Counts:
    return [criminals.of(c) for c in COLOURS]


def _points(colour: int, count: int) -> int:
    if count <= 0:
        return 0
    table = _TABLES[colour]
    return table[min(count, len(table)) - 1]


def points(counts: Counts) -> int:
    """Score-table points of a jail, grays placed where they add most (one or two grays)."""
    base = [_points(c, counts[c]) for c in range(4)]
    total = sum(base)
    grays = counts[GRAY]
    if grays <= 0:
        return total
    one = [_points(c, counts[c] + 1) - base[c] for c in range(4)]
    if grays == 1:
        return total + max(one)
    two = max(_points(c, counts[c] + 2) - base[c] for c in range(4))
    ranked = sorted(one, reverse=True)
    best = max(two, ranked[0] + ranked[1])
    # More than two grays never happens (there are two); count extras as pink singles.
    return total + best + (grays - 2)


class Haul(NamedTuple):
    criminals: dict[Owner, Counts]
    token_owner: Owner
    token: float


class Board:
    """What the projection needs, built from one seat's view."""

    __slots__ = ("busted", "criminals", "jails", "me", "seats", "stacks", "tokens", "won")

    def __init__(self, view: FedsView) -> None:
        if view.seat is None:
            raise ValueError("a bot plays a seat")
        self.me: int = view.seat
        self.seats = view.seats
        unseen = _unseen_strength(view)
        self.stacks: list[list[tuple[Owner, float]]] = []
        self.criminals: list[Counts] = []
        self.tokens: list[float] = []
        hidden_tokens = _hidden_token_value(view)
        for loc in view.locations:
            stack: list[tuple[Owner, float]] = [(a.owner, float(a.strength)) for a in loc.field]
            if loc.mole is not None:
                owner = loc.mole.owner
                known = loc.mole.strength
                stack.append((owner, float(known) if known is not None else unseen[owner]))
            self.stacks.append(stack)
            self.criminals.append(counts_of(loc.criminals))
            token = loc.utility_token
            if token is None:
                self.tokens.append(0.0)
            else:
                self.tokens.append(float(token.value) if token.value is not None else hidden_tokens)
        # Step-1 choices waiting for their deploy, in turn order.
        for k in range(view.seats):
            player = view.players[(view.badge + k) % view.seats]
            if player.chosen_location is not None:
                agent = player.chosen_agent
                strength = float(STRENGTH[agent]) if agent else unseen[player.seat]
                self.stacks[LOCATION_INDEX[player.chosen_location]].append((player.seat, strength))
        self.jails: dict[Owner, Counts] = {p.seat: counts_of(p.jail) for p in view.players}
        self.won: dict[Owner, float] = {p.seat: float(sum(p.utility_tokens)) for p in view.players}
        self.busted: tuple[int, list[Owner], int] | None = None
        if view.phase in ("bust", "over") and view.bust is not None:
            turn = view.bust.next_in_order if view.bust.next_in_order is not None else 0
            self.busted = (LOCATION_INDEX[view.bust.location], list(view.bust.order), turn)

    def order(self, index: int) -> tuple[list[Owner], int]:
        """Arrest order at a location (and the index of the next picker)."""
        if self.busted is not None and self.busted[0] == index:
            return self.busted[1], self.busted[2]
        strength: dict[Owner, float] = {}
        closest: dict[Owner, int] = {}
        for position, (owner, value) in enumerate(self.stacks[index]):
            strength[owner] = strength.get(owner, 0.0) + value
            closest.setdefault(owner, position)
        return sorted(strength, key=lambda o: (-strength[o], closest[o])), 0

    def haul(self, index: int) -> Haul:
        """What each owner would arrest at ``index`` if it were busted as things stand, and
        who would take its utility token."""
        if self.busted is not None and index < self.busted[0]:
            return Haul({}, None, 0.0)
        order, turn = self.order(index)
        left = list(self.criminals[index])
        hauls: dict[Owner, Counts] = {o: [0] * 5 for o in order}
        if not order:
            return Haul(hauls, None, 0.0)
        fresh = self.busted is None or self.busted[0] != index
        token = self.tokens[index] if fresh else 0.0
        while sum(left):
            owner = order[turn % len(order)]
            turn += 1
            colour = _pick(left, self.jails.get(owner), hauls[owner], owner is None)
            hauls[owner][colour] += left[colour]
            left[colour] = 0
        return Haul(hauls, order[0], token)

    def scores(self, hauls: list[Haul]) -> list[float]:
        out: list[float] = []
        for seat in range(self.seats):
            jail = list(self.jails[seat])
            tokens = self.won[seat]
            for haul in hauls:
                got = haul.criminals.get(seat)
                if got is not None:
                    for c in range(5):
                        jail[c] += got[c]
                if haul.token_owner == seat:
                    tokens += haul.token
            out.append(points(jail) + tokens)
        return out

    def margin(self, hauls: list[Haul]) -> float:
        """The bot's projected score minus the others' average."""
        scores = self.scores(hauls)
        others = [s for seat, s in enumerate(scores) if seat != self.me]
        return scores[self.me] - sum(others) / len(others)

    def evaluate(self) -> float:
        return self.margin([self.haul(i) for i in range(len(self.stacks))])


def _pick(left: Counts, jail: Counts | None, haul: Counts, officer: bool) -> int:
    if officer or jail is None:
        return next(c for c in _OFFICER_ORDER if left[c])
    present = [c for c in range(5) if left[c]]
    mine = [jail[c] + haul[c] for c in range(5)]
    now = points(mine)
    best, best_gain = present[0], -1.0
    for c in present:
        mine[c] += left[c]
        gain = points(mine) - now
        mine[c] -= left[c]
        if gain > best_gain:
            best, best_gain = c, gain
    return best


def _unseen_strength(view: FedsView) -> dict[Owner, float]:
    """Average strength of each owner's cards the viewer cannot see (hand, face-down moles
    and step-1 cards of other seats)."""
    seen: dict[Owner, list[Agent]] = {p.seat: [] for p in view.players}
    seen[None] = []
    for loc in view.locations:
        for a in loc.field:
            seen[a.owner].append(a.agent)
        if loc.mole is not None and loc.mole.agent is not None:
            seen[loc.mole.owner].append(loc.mole.agent)
    out: dict[Owner, float] = {}
    for owner, cards in seen.items():
        pool = list(AGENTS)
        for agent in cards:
            if agent in pool:
                pool.remove(agent)
        out[owner] = sum(STRENGTH[a] for a in pool) / len(pool) if pool else 0.0
    return out


def _hidden_token_value(view: FedsView) -> float:
    """Expected value of a face-down utility token: the average of the values not seen."""
    pool = list(UTILITY_TOKENS)
    seen = [t for p in view.players for t in p.utility_tokens]
    if view.officer is not None:
        seen += view.officer.utility_tokens
    seen += [
        loc.utility_token.value
        for loc in view.locations
        if loc.utility_token is not None and loc.utility_token.value is not None
    ]
    for value in seen:
        if value in pool:
            pool.remove(value)
    return sum(pool) / len(pool) if pool else 0.0
