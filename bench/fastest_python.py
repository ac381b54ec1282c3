"""The fastest Python 3.11+ on PATH: the interpreter `make` builds the venv on.

    python3 bench/fastest_python.py

Builds of one Python version are not equally fast. pyenv's default build (no profile-guided
optimisation or link-time optimisation, the interpreter in a shared libpython) served
stakeout with more CPU than Debian's python3.11 on the same machine: 9 % more an act, 12-14 %
more a `/healthz` request (`bench/interpreter_cost.py`; docs/deploy.md, "Which Python").
A fresh clone's `make` should not serve on the slower one because it comes first on PATH.

Candidates: every ``python3``, ``python3.11`` ... ``python3.14`` in every directory of PATH
(not only the first hit), one per interpreter, that is 3.11 or newer and can make a venv
with pip (``venv`` and ``ensurepip`` import). Each runs the same pure-Python loop (dicts,
strings, small objects and method calls: what a request does most) five times; its best
time counts. The first candidate on PATH is kept unless another is at least 5 % faster, so
a noisy moment does not flip the choice. Figures go to stderr; the chosen interpreter's
path is the one line on stdout (``python3`` when no candidate qualifies, so that the
Makefile's own check says what is wrong). ``make PYTHON=...`` skips all of this.
"""

from __future__ import annotations

import os
import subprocess
import sys

NAMES = ("python3", "python3.11", "python3.12", "python3.13", "python3.14")
MARGIN = 0.95  # another candidate must take at most this share of the first one's time

# Run by each candidate: its identity, or nothing when it does not qualify, then its time.
PROBE = """
import os, sys, time
if sys.version_info < (3, 11):
    raise SystemExit(0)
try:
    import ensurepip, venv
except ImportError:
    raise SystemExit(0)

class Seat:
    def __init__(self, n):
        self.n = n
    def score(self):
        return self.n % 7

def work():
    table = {}
    total = 0
    for i in range(200_000):
        key = i % 97
        table[key] = table.get(key, 0) + Seat(i).score()
        total += len(str(i))
    return total, table

best = float("inf")
for _ in range(5):
    started = time.process_time()
    work()
    best = min(best, time.process_time() - started)
print(os.path.realpath(sys.executable), sys.version.split()[0], best)
"""


def candidates() -> list[str]:
    """Every interpreter of NAMES in every PATH directory, in PATH order."""
    found = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        for name in NAMES:
            path = os.path.join(folder or ".", name)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                found.append(path)
    return found


def timed(path: str) -> tuple[str, str, float] | None:
    """(interpreter, version, best seconds), or None when it does not qualify."""
    try:
        done = subprocess.run(
            [path, "-c", PROBE], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = done.stdout.split()
    if done.returncode != 0 or len(fields) != 3:
        return None
    return fields[0], fields[1], float(fields[2])


def main() -> None:
    seen: set[str] = set()
    timings: list[tuple[str, str, float]] = []  # (path on PATH, version, seconds)
    for path in candidates():
        found = timed(path)
        if found is None or found[0] in seen:
            continue
        seen.add(found[0])
        timings.append((path, found[1], found[2]))
        print(f"  {path} (Python {found[1]}): {found[2] * 1000:.0f} ms", file=sys.stderr)
    if not timings:
        print("python3")
        return
    chosen = timings[0]
    for timing in timings[1:]:
        if timing[2] < chosen[2] * MARGIN and timing[2] < timings[0][2] * MARGIN:
            chosen = timing
    print(f"  the venv's Python: {chosen[0]} (Python {chosen[1]})", file=sys.stderr)
    print(chosen[0])


if __name__ == "__main__":
    main()
