"""Seeded, recorded randomness.

Every random choice of a game comes from one secret 32-byte seed, published only as its
SHA-256 (the seed commitment) until the game ends. Each use forks the seed with a label
(``"setup"``, ``"v17"``…), so a verifier holding the seed re-derives every shuffle and
every draw exactly, whatever order the server happened to compute them in.

The generator is SHA-256 in counter mode; integers below a bound are drawn by rejection
sampling, so there is no modulo bias and nothing depends on Python's ``random`` module
(whose algorithms may change between versions).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BYTES = 32


def new_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a seed: hex SHA-256 of its raw bytes."""
    return hashlib.sha256(seed).hexdigest()


class Rng:
    """A deterministic random stream derived from ``seed`` and ``label``."""

    __slots__ = ("_buffer", "_counter", "_key", "_label", "_seed")

    def __init__(self, seed: bytes, label: str = "") -> None:
        # The key is derived on first use: most acts are decided without a random draw,
        # and the derivation is the cost of making one (an HMAC per act).
        self._seed = seed
        self._label = label
        self._key = b""
        self._counter = 0
        self._buffer = b""

    def _derived(self) -> bytes:
        if not self._key:
            self._key = hmac.digest(self._seed, self._label.encode(), "sha256")  # in C
        return self._key

    def fork(self, label: str) -> Rng:
        """An independent stream for a sub-purpose; does not advance this one."""
        return Rng(self._derived(), label)

    def _bytes(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hashlib.sha256(self._derived() + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def below(self, bound: int) -> int:
        """A uniform integer in ``range(bound)``."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound == 1:
            return 0
        nbits = (bound - 1).bit_length()
        nbytes = (nbits + 7) // 8
        mask = (1 << nbits) - 1
        while True:
            value = int.from_bytes(self._bytes(nbytes), "big") & mask
            if value < bound:
                return value

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A Fisher–Yates shuffle of a copy of ``items``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out
