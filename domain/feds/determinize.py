"""Sample a full state consistent with one seat's view (for the expert bot's rollouts).

Everything the view hides is drawn at random from what it could be: the other seats' hands,
face-down moles and undeployed step-1 cards (from each owner's cards not seen yet), the
Officer's deck order, and face-down utility token values.
"""

from __future__ import annotations

from domain.feds.cards import AGENTS, LOCATION_INDEX, UTILITY_TOKENS, Agent
from domain.feds.state import (
    Activation,
    Choice,
    FedsState,
    FieldAgent,
    Mole,
    Officer,
    SirenTaker,
    Spot,
    UtilityToken,
)
from domain.feds.views import FedsView
from domain.rng import Rng


def _without(pool: list[Agent], cards: list[Agent]) -> list[Agent]:
    pool = list(pool)
    for card in cards:
        if card in pool:
            pool.remove(card)
    return pool


def determinize(view: FedsView, rng: Rng) -> FedsState:
    """A full state the view could come from. The random draws happen in a fixed order
    (each other seat's unseen cards, the face-down tokens, then the Officer's deck), so a
    seeded expert always samples the same worlds."""
    me = view.seat
    if me is None:
        raise ValueError("determinize a seat's view")
    seen = _seen_agents(view)
    unseen = _Unseen(view, seen, rng)
    spots = _spots(view, unseen)  # face-down moles draw first, location by location
    chosen, hands = _seats(view, me, unseen)
    bust_location, bust_order, bust_turn = _bust(view)
    siren_location, takers = _siren_arrest(view)
    return FedsState(
        seats=view.seats,
        city=view.city,
        sirens=view.sirens,
        badge=view.badge,
        locations=spots,
        hands=hands,
        jails=[p.jail for p in view.players],
        utility_tokens=[list(p.utility_tokens) for p in view.players],
        bag=view.bag,
        officer=_officer(view, seen[None], rng),
        round=view.round,
        phase=view.phase,
        chosen=chosen,
        activations=[
            Activation(a.seat, a.owner, a.agent, LOCATION_INDEX[a.location])
            for a in view.activations
        ],
        siren_location=siren_location,
        siren_takers=takers,
        bust_location=bust_location,
        bust_order=bust_order,
        bust_turn=bust_turn,
        moves=view.moves,
    )


def _seen_agents(view: FedsView) -> dict[int | None, list[Agent]]:
    """The agents the view shows of each owner (None: the Officer): fields and known moles."""
    seen: dict[int | None, list[Agent]] = {p.seat: [] for p in view.players}
    seen[None] = []
    for loc in view.locations:
        for card in loc.field:
            seen[card.owner].append(card.agent)
        if loc.mole is not None and loc.mole.agent is not None:
            seen[loc.mole.owner].append(loc.mole.agent)
    return seen


class _Unseen:
    """What the view hides, shuffled: each other seat's cards not seen yet, and the values
    of the face-down utility tokens. Each hidden card or token is dealt from here once."""

    def __init__(self, view: FedsView, seen: dict[int | None, list[Agent]], rng: Rng) -> None:
        self._agents: dict[int, list[Agent]] = {
            player.seat: rng.shuffled(_without(list(AGENTS), seen[player.seat]))
            for player in view.players
            if player.seat != view.seat
        }
        self._tokens = rng.shuffled(_without_values(list(UTILITY_TOKENS), _seen_tokens(view)))

    def agent(self, owner: int) -> Agent:
        return self._agents[owner].pop()

    def token(self) -> int:
        return self._tokens.pop()


def _spots(view: FedsView, unseen: _Unseen) -> list[Spot]:
    """The locations, face-down moles and token values dealt from ``unseen``."""
    spots: list[Spot] = []
    for loc in view.locations:
        mole = None
        if loc.mole is not None:
            m = loc.mole
            agent = m.agent
            if agent is None:
                if m.owner is None:  # pragma: no cover - the Officer's moles are face up
                    raise ValueError("the Officer's moles are face up")
                agent = unseen.agent(m.owner)
            mole = Mole(m.owner, agent, face_up=m.face_up, seen_by=list(m.seen_by))
        token = None
        if loc.utility_token is not None:
            value = loc.utility_token.value
            token = UtilityToken(
                value if value is not None else unseen.token(), loc.utility_token.face_up
            )
        spots.append(
            Spot(
                criminals=loc.criminals,
                mole=mole,
                field=[FieldAgent(a.owner, a.agent) for a in loc.field],
                closed=loc.closed,
                siren=loc.siren,
                utility_token=token,
            )
        )
    return spots


def _seats(
    view: FedsView, me: int, unseen: _Unseen
) -> tuple[list[Choice | None], list[list[Agent]]]:
    """Each seat's step-1 choice and hand: the viewer's own as shown, the others' dealt
    from ``unseen`` (the choice first, then the hand)."""
    chosen: list[Choice | None] = []
    hands: list[list[Agent]] = []
    for player in view.players:
        choice = None
        if player.chosen_location is not None:
            agent = player.chosen_agent if player.seat == me else unseen.agent(player.seat)
            if agent is None:  # pragma: no cover - a seat always sees its own choice
                raise ValueError("own step-1 card missing from the view")
            choice = Choice(agent, LOCATION_INDEX[player.chosen_location])
        chosen.append(choice)
        if player.seat == me:
            hands.append(list(player.hand or []))
        else:
            hands.append([unseen.agent(player.seat) for _ in range(player.hand_size)])
    return chosen, hands


def _officer(view: FedsView, seen: list[Agent], rng: Rng) -> Officer | None:
    """The Officer, its deck drawn from the agents of its not seen yet."""
    if view.officer is None:
        return None
    o = view.officer
    return Officer(
        deck=rng.shuffled(_without(list(AGENTS), seen))[: o.deck_size],
        car=LOCATION_INDEX[o.car],
        deployed=o.deployed_this_round,
        jail=o.jail,
        utility_tokens=list(o.utility_tokens),
    )


def _bust(view: FedsView) -> tuple[int, list[int | None], int]:
    if view.bust is None:
        return -1, [], 0
    return (
        LOCATION_INDEX[view.bust.location],
        list(view.bust.order),
        view.bust.next_in_order or 0,
    )


def _siren_arrest(view: FedsView) -> tuple[int | None, list[SirenTaker]]:
    if view.siren_arrest is None:
        return None, []
    takers = [SirenTaker(s.owner, s.criminals) for s in view.siren_arrest.shares]
    return LOCATION_INDEX[view.siren_arrest.location], takers


def _seen_tokens(view: FedsView) -> list[int]:
    seen = [t for p in view.players for t in p.utility_tokens]
    if view.officer is not None:
        seen += view.officer.utility_tokens
    for loc in view.locations:
        if loc.utility_token is not None and loc.utility_token.value is not None:
            seen.append(loc.utility_token.value)
    return seen


def _without_values(pool: list[int], values: list[int]) -> list[int]:
    for value in values:
        if value in pool:
            pool.remove(value)
    return pool
