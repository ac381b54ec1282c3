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
    me = view.seat
    if me is None:
        raise ValueError("determinize a seat's view")
    seen: dict[int | None, list[Agent]] = {p.seat: [] for p in view.players}
    seen[None] = []
    for loc in view.locations:
        for card in loc.field:
            seen[card.owner].append(card.agent)
        if loc.mole is not None and loc.mole.agent is not None:
            seen[loc.mole.owner].append(loc.mole.agent)

    # Draw every hidden card of each other seat from its unseen cards.
    drawn: dict[int, list[Agent]] = {}
    for player in view.players:
        if player.seat != me:
            pool = _without(list(AGENTS), seen[player.seat])
            drawn[player.seat] = rng.shuffled(pool)

    def draw(owner: int) -> Agent:
        return drawn[owner].pop()

    hidden_tokens = _without_values(list(UTILITY_TOKENS), _seen_tokens(view))
    hidden_tokens = rng.shuffled(hidden_tokens)

    spots: list[Spot] = []
    for loc in view.locations:
        mole = None
        if loc.mole is not None:
            m = loc.mole
            agent = m.agent
            if agent is None:
                if m.owner is None:  # pragma: no cover - the Officer's moles are face up
                    raise ValueError("the Officer's moles are face up")
                agent = draw(m.owner)
            mole = Mole(m.owner, agent, face_up=m.face_up, seen_by=list(m.seen_by))
        token = None
        if loc.utility_token is not None:
            value = loc.utility_token.value
            token = UtilityToken(
                value if value is not None else hidden_tokens.pop(), loc.utility_token.face_up
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

    chosen: list[Choice | None] = []
    hands: list[list[Agent]] = []
    for player in view.players:
        choice = None
        if player.chosen_location is not None:
            agent = player.chosen_agent if player.seat == me else draw(player.seat)
            if agent is None:  # pragma: no cover - a seat always sees its own choice
                raise ValueError("own step-1 card missing from the view")
            choice = Choice(agent, LOCATION_INDEX[player.chosen_location])
        chosen.append(choice)
        if player.seat == me:
            hands.append(list(player.hand or []))
        else:
            hands.append([drawn[player.seat].pop() for _ in range(player.hand_size)])

    officer = None
    if view.officer is not None:
        o = view.officer
        deck = rng.shuffled(_without(list(AGENTS), seen[None]))[: o.deck_size]
        officer = Officer(
            deck=deck,
            car=LOCATION_INDEX[o.car],
            deployed=o.deployed_this_round,
            jail=o.jail,
            utility_tokens=list(o.utility_tokens),
        )

    bust_location, bust_order, bust_turn = -1, [], 0
    if view.bust is not None:
        bust_location = LOCATION_INDEX[view.bust.location]
        bust_order = list(view.bust.order)
        bust_turn = view.bust.next_in_order or 0
    siren_location = None
    takers: list[SirenTaker] = []
    if view.siren_arrest is not None:
        siren_location = LOCATION_INDEX[view.siren_arrest.location]
        takers = [SirenTaker(s.owner, s.criminals) for s in view.siren_arrest.shares]
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
        officer=officer,
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
