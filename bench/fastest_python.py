"""The fastest Python 3.11+ on PATH: the interpreter `make` builds the venv on.

    python3 bench/fastest_python.py

Builds of one Python version are not equally fast. pyenv's default build (no profile-guided
optimisation or link-time optimisation, the interpreter in a shared libpython) served
stakeout with more CPU than Debian's python3.11 on the same machine: 9 % more an act, 12-14 %
more a `/healthz` request (`bench/interpreter_cost.py`; docs/deploy.md, "Which Python").
A fresh clone's `make` should not serve on the slower one because it comes first on PATH.

Candidates: every ``python3``, ``python3.11`` ... ``python3.14`` in every directory of PATH
(not only the first hit), one per interpreter, that is 3.11 or newer and can make a venv
with pip (``venv`` and ``ensurepip`` import). This runs on every fresh clone's first
``make``, so it is kept cheap: paths that are links to one file count once; the others are
asked who they are all at once (a version manager's shim is a script that takes a few tenths
of a second to find its interpreter, or to say it has none); only distinct interpreters that
qualify are timed, and only when there are two or more. Each runs the same short pure-Python
loop (dicts, strings, small objects and method calls: what a request does most) five times;
its best time counts. The first candidate on PATH is kept unless another is at least 5 %
faster, so a noisy moment does not flip the choice. Figures go to stderr; the chosen
interpreter's path is the one line on stdout (``python3`` when no candidate qualifies, so
that the Makefile's own check says what is wrong). ``make PYTHON=...`` skips all of this.

On the development machine (pyenv's shims and Debian's python3 on PATH: six paths, two
interpreters) this takes 1.6-2.0 s, against 6-8 s when every path was timed, on a loop four
times as long.
"""

from __future__ import annotations

import os
import subprocess
import sys

NAMES = ("python3", "python3.11", "python3.12", "python3.13", "python3.14")
MARGIN = 0.95  # another candidate must take at most this share of the first one's time

# Asked of every candidate at once: its identity, or nothing when it does not qualify.
IDENTITY = """
import os, sys
if sys.version_info < (3, 11):
    raise SystemExit(0)
try:
    import ensurepip, venv
except ImportError:
    raise SystemExit(0)
print(os.path.realpath(sys.executable), sys.version.split()[0])
"""

# Run by each distinct interpreter, one after the other: its best time of five.
LOOP = """
import time

class Seat:
    def __init__(self, n):
        self.n = n
    def score(self):
        return self.n % 7

def work():
    table = {}
    total = 0
    for i in range(50_000):
        key = i % 97
        table[key] = table.get(key, 0) + Seat(i).score()
        total += len(str(i))
    return total, table

best = float("inf")
for _ in range(5):
    started = time.process_time()
    work()
    best = min(best, time.process_time() - started)
print(best)
"""


def candidates() -> list[str]:
    """Every interpreter of NAMES in every PATH directory, in PATH order; a path that is a
    link to a file already listed is left out (``/bin`` and ``/usr/bin`` on a merged /usr,
    ``python3`` and ``python3.11`` of one install)."""
    found: list[str] = []
    files: set[str] = set()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        for name in NAMES:
            path = os.path.join(folder or ".", name)
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                continue
            target = os.path.realpath(path)
            if target not in files:
                files.add(target)
                found.append(path)
    return found


def identities(paths: list[str]) -> list[tuple[str, str, str] | None]:
    """(path, interpreter, version) of each path, or None when it does not qualify: all
    asked at once (nothing is timed here)."""
    running: list[subprocess.Popen[str] | None] = []
    for path in paths:
        try:
            running.append(
                subprocess.Popen(
                    [path, "-c", IDENTITY],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                )
            )
        except OSError:
            running.append(None)
    answers: list[tuple[str, str, str] | None] = []
    for path, process in zip(paths, running, strict=True):
        fields: list[str] = []
        if process is not None:
            try:
                out, _ = process.communicate(timeout=30)
                fields = out.split() if process.returncode == 0 else []
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
        answers.append((path, fields[0], fields[1]) if len(fields) == 2 else None)
    return answers


def timed(path: str) -> float | None:
    """The best of five runs of the loop, in seconds (None when it fails)."""
    try:
        done = subprocess.run(
            [path, "-c", LOOP], capture_output=True, text=True, timeout=60, check=False
        )
        return float(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


def main() -> None:
    seen: set[str] = set()
    distinct: list[tuple[str, str]] = []  # (path on PATH, version), one per interpreter
    for answer in identities(candidates()):
        if answer is not None and answer[1] not in seen:
            seen.add(answer[1])
            distinct.append((answer[0], answer[2]))
    if not distinct:
        print("python3")
        return
    if len(distinct) == 1:
        path, version = distinct[0]
        print(f"  the venv's Python: {path} (Python {version}, the only one)", file=sys.stderr)
        print(path)
        return
    timings: list[tuple[str, str, float]] = []  # (path on PATH, version, seconds)
    for path, version in distinct:
        seconds = timed(path)
        if seconds is None:
            continue
        timings.append((path, version, seconds))
        print(f"  {path} (Python {version}): {seconds * 1000:.1f} ms", file=sys.stderr)
    if not timings:
        print(distinct[0][0])
        return
    chosen = timings[0]
    for timing in timings[1:]:
        if timing[2] < chosen[2] * MARGIN and timing[2] < timings[0][2] * MARGIN:
            chosen = timing
    print(f"  the venv's Python: {chosen[0]} (Python {chosen[1]})", file=sys.stderr)
    print(chosen[0])


if __name__ == "__main__":
    main()
