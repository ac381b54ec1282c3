"""Tip-off: a tiny game kept with the tests, the template for a fourth game.

It is not served (it is not in `domain.registry`); the conformance suite plays it beside
the real games. See docs/adding-a-game.md, which follows this package step by step.
"""

from tests.example_game.game import GAME

__all__ = ["GAME"]
