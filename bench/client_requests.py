"""HTTP requests per act: the Python SDK's seat loop against the README's loop. Not a test.

    .venv/bin/python bench/client_requests.py [--games 2]

Starts `stakeout run` (its embedded Valkey, workers and one API process) in a temporary
folder, with the rate limit off, then plays ``--games`` games of each kind, one human seat
against bots (FBI and The Feds with three, Bonnie and Clyde with one, its target 10), once
with each client:

- ``sdk``: `clients/python`'s ten-line loop, ``wait_for_turn`` then ``play`` of the first
  legal move (a sealed step's commit, wait and reveal inside ``play``); requests counted by
  the SDK (`Stakeout.requests`, retries included); turns awaited by long poll;
- ``sdk-live``: the same with ``game.seat(0, live=True)``: turns awaited on the view feed
  (one request open for the whole game, counted once);
- ``ts``: `clients/typescript`'s loop, ``waitForTurn`` then ``play`` of the first legal move
  (`src/bench/requests.ts`, built by ``npm run build``; the bots all ``random``), its
  requests counted by the SDK;
- ``readme``: the README tour's python3 loop for Ann's seat, run as the README has it
  (``urllib``), every ``urlopen`` counted; it takes the first legal move.

An act is a move, a commitment or a reveal posted. It prints, per kind and client, the
acts, the requests and the requests per act, side by side in one run; each loop asks for the
view with each act (``Prefer: return=representation``) and long-polls only while the game
does not await its seat, so the figure is how often the bots make a seat wait.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from tests.processes import free_port, run_env, running

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "clients" / "python"))

from stakeout_client import Stakeout, bot, human  # noqa: E402 (clients/python, just above)

API_KEY = "sk_bench"
TABLES: dict[str, tuple[int, dict[str, Any]]] = {
    "fbi": (3, {}),
    "feds": (3, {}),
    "bonnie_clyde": (1, {"target": 10}),
}


def seats(kind: str) -> list[dict[str, Any]]:
    bots, _ = TABLES[kind]
    return [human(), *[bot(level) for level in ["random", "greedy", "random"][:bots]]]


def sdk_game(base: str, kind: str, live: bool) -> tuple[int, int]:
    with Stakeout(base, API_KEY) as api:
        game = api.create_game(kind, seats=seats(kind), options=TABLES[kind][1])
        seat = game.seat(0, live=live)
        start, acts = api.requests, 0
        while (turn := seat.wait_for_turn(timeout=60)) is not None:
            seat.play(turn.legal[0] if turn.legal else None)  # as the README's loop does
            acts += 2 if turn.action == "commit" else 1
        seat.close()
        return acts, api.requests - start


def ts_games(base: str, kind: str, games: int) -> tuple[int, int]:
    script = ROOT / "clients" / "typescript" / "dist" / "bench" / "requests.js"
    bots, options = TABLES[kind]
    out = subprocess.run(
        ["node", str(script), base, API_KEY, kind, str(games), str(bots), json.dumps(options)],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    counted = json.loads(out.stdout)
    return int(counted["acts"]), int(counted["requests"])


def readme_loop() -> str:
    """The python3 program of the README tour's rated game (its heredoc), as printed."""
    text = (ROOT / "README.md").read_text()
    found = re.search(r"python3 - \"\$API/v1/games/\$GAME\" \"\$TOKEN\" <<'EOF'\n(.*?)^EOF$",
                      text, re.S | re.M)  # fmt: skip
    if found is None:
        raise SystemExit("the README's loop is not where this bench looks for it")
    return found.group(1)


def readme_game(base: str, kind: str, program: str) -> tuple[int, int]:
    with Stakeout(base, API_KEY) as api:
        game = api.create_game(kind, seats=seats(kind), options=TABLES[kind][1])
        token = game.seat(0).token
    counts = {"requests": 0, "acts": 0}
    real = urllib.request.urlopen

    def counted(request: Any, *args: Any, **kwargs: Any) -> Any:
        counts["requests"] += 1
        counts["acts"] += getattr(request, "data", None) is not None
        return real(request, *args, **kwargs)

    urllib.request.urlopen = counted  # type: ignore[assignment]
    argv = sys.argv
    try:
        sys.argv = ["-", f"{base}/v1/games/{game.id}", token]
        exec(compile(program, "README.md", "exec"), {"__name__": "__main__"})
    finally:
        urllib.request.urlopen = real
        sys.argv = argv
    return counts["acts"], counts["requests"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    args = parser.parse_args()
    program = readme_loop()
    with tempfile.TemporaryDirectory() as scratch, running(Path(scratch)) as procs:
        data = Path(scratch) / "data"
        env = run_env(data, free_port(), STAKEOUT_API_KEYS=API_KEY, STAKEOUT_API_PROCESSES="1")
        base = procs.run(env, timeout=180).base
        print(f"{'game':<13} {'client':<8} {'acts':>6} {'requests':>9} {'per act':>8}")
        for kind in TABLES:
            for client in ("sdk", "sdk-live", "ts", "readme"):
                acts = requests = 0
                if client == "ts":
                    acts, requests = ts_games(base, kind, args.games)
                for _ in range(args.games if client != "ts" else 0):
                    a, r = (
                        sdk_game(base, kind, live=client == "sdk-live")
                        if client.startswith("sdk")
                        else readme_game(base, kind, program)
                    )
                    acts, requests = acts + a, requests + r
                per = requests / acts if acts else float("nan")
                print(f"{kind:<13} {client:<8} {acts:>6} {requests:>9} {per:>8.2f}")


if __name__ == "__main__":
    main()
