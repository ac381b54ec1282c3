"""A newcomer's first start, timed: clone, `make run`, first accepted move, Ctrl+C. Not a test.

    python3 bench/first_move.py [--runs 3] [--ref HEAD] [--cold-pip] [--python PATH]

Each run clones this repository at ``--ref`` (a commit: uncommitted changes are not in it)
into a fresh temporary folder and runs ``make run`` there on a free port (``PORT``), as the
README's quick start has a newcomer do: no venv, no ``.data``, none of the service's
settings, no ``PYTHON*`` variables (bytecode is written, as in most shells). It waits for
the API key line, then for ``/readyz`` to answer 200, creates an FBI game of the human
seat against four random bots (``POST /v1/games``) and plays the human's first act from
its view: the first legal move as is (``/moves``) or, in a sealed step, a commitment of it
and, once the bots have committed, its reveal: the move accepted.

It prints the seconds from the start of the clone to: the clone done (``clone``), the
interpreter chosen and the venv made (``venv``: make's first pip command), the install
done (``install``: make starts ``stakeout run``), the server ready (``ready``: ``/readyz``
200), the first move accepted (``move``). Then it sends SIGINT to make's process group
(what Ctrl+C in a terminal does) and prints how long the shutdown took (until make
exits), and whether a traceback appeared in the output (the lines around it are printed)
or a process was left running in the clone.

pip's cache is whatever this machine has (warm once anything was installed, unless pip's
index answers are not cacheable); ``--cold-pip`` gives each run an empty one
(``PIP_CACHE_DIR``). ``--python`` is passed as ``make PYTHON=...``. Needs only the
standard library, git and make; runs on any Python 3.11+. Medians over the runs at the end.

On the development machine (2 cores shared with other work; pip's cache stays empty there,
so every run downloads), runs of this commit and of the one before the install was split,
interleaved, median of 3 each, first accepted move: 20.9 s against 58.9 s at a load of
1.5-2.5, 27.8 s against 77.8 s at 2.5-5. After: the venv with its pip 2.6-4 s (choosing the
interpreter 1.6-2 s of it), ``pip install -e .`` 14-19 s (its resolution over the network
11-12 s), compiling what serving imports 2-3 s, ``/readyz`` 1.5-4 s later, the move 0.1-0.3 s
after that; Ctrl+C stops everything in 0.3-1.8 s, with no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
KEY_LINE = re.compile(r"API key:\s+(sk_\S+)")
INSTALL_DONE = "/stakeout run"  # make echoes `.venv/bin/stakeout run` when the install is done
STEPS = ("clone", "venv", "install", "ready", "move")
VENV_DONE = "-m pip "  # the first pip command make echoes: the interpreter chosen, the venv made
READY_TIMEOUT = 600.0
SHUTDOWN_TIMEOUT = 60.0


class Output:
    """make's output (stdout and stderr), line by line, each with when it was read."""

    def __init__(self, stream: Any, started: float) -> None:
        self.lines: list[tuple[float, str]] = []
        self._stream = stream
        self._started = started
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for raw in self._stream:
            line = raw.decode(errors="replace").rstrip("\n")
            with self._changed:
                self.lines.append((time.monotonic() - self._started, line))
                self._changed.notify_all()
        with self._changed:
            self.lines.append((time.monotonic() - self._started, "<eof>"))
            self._changed.notify_all()

    def wait_for(self, pattern: re.Pattern[str] | str, timeout: float) -> tuple[float, str]:
        """The first line matching, with its time (seconds since the clone started)."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._changed:
            while True:
                for at, line in self.lines[seen:]:
                    if line == "<eof>":
                        raise RuntimeError(f"make ended before {pattern!r}:\n{self.tail()}")
                    found = (
                        pattern.search(line) if isinstance(pattern, re.Pattern) else pattern in line
                    )
                    if found:
                        return at, line
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {pattern!r} in {timeout:.0f} s:\n{self.tail()}")
                self._changed.wait(left)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def tail(self, count: int = 30) -> str:
        return "\n".join(line for _, line in self.lines[-count:])

    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _call(
    method: str, url: str, token: str | None = None, body: Any = None, timeout: float = 30.0
) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            payload = answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        payload = error.read()
        status = error.code
    return status, json.loads(payload) if payload else None


def _wait_ready(base: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            status, _ = _call("GET", f"{base}/readyz", timeout=2.0)
            if status == 200:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise TimeoutError(f"/readyz not 200 within {timeout:.0f} s")


def _mine(view: dict[str, Any], actions: tuple[str, ...]) -> dict[str, Any] | None:
    for awaited in view.get("awaiting") or ():
        if awaited["seat"] == view["you"] and awaited["action"] in actions:
            return dict(awaited)
    return None


def _view_awaiting(
    base: str, game: str, token: str, actions: tuple[str, ...]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The seat's view once it is awaited for one of ``actions`` (long polls the version),
    and what it is awaited for."""
    deadline = time.monotonic() + 120
    status, view = _call("GET", f"{base}/v1/games/{game}", token)
    while time.monotonic() < deadline:
        if status != 200:
            raise RuntimeError(f"view: {status} {view}")
        awaited = _mine(view, actions)
        if awaited is not None:
            return dict(view), awaited
        status, view = _call(
            "GET", f"{base}/v1/games/{game}?after_version={view['version']}&wait=10", token
        )
    raise TimeoutError(f"never awaited for {actions}: {view}")


def _first_move(base: str, key: str, clock: Any) -> tuple[float | None, float]:
    """(commitment accepted or None when the first act is a plain move, move accepted):
    seconds on ``clock``."""
    seats: list[dict[str, str]] = [{"type": "human"}]
    seats += [{"type": "bot", "level": "random"}] * 4
    status, game = _call("POST", f"{base}/v1/games", key, {"game": "fbi", "seats": seats})
    if status != 201:
        raise RuntimeError(f"POST /v1/games: {status} {game}")
    game_id, token = game["id"], game["seats"][0]["token"]
    url = f"{base}/v1/games/{game_id}"
    view, awaited = _view_awaiting(base, game_id, token, ("move", "commit"))
    move = view["legal"][0]
    if awaited["action"] == "move":
        status, answer = _call("POST", f"{url}/moves", token, move)
        if status not in (200, 201):
            raise RuntimeError(f"move: {status} {answer}")
        return None, clock()
    salt = secrets.token_hex(16)
    canonical = json.dumps(move, sort_keys=True, separators=(",", ":"))
    preimage = f"sealed-v1|{game_id}|{awaited['step']}|{view['you']}|{canonical}|{salt}"
    digest = hashlib.sha256(preimage.encode()).hexdigest()
    status, answer = _call("POST", f"{url}/commitments", token, {"commitment": digest})
    if status not in (200, 201):
        raise RuntimeError(f"commitment: {status} {answer}")
    committed = clock()
    _view_awaiting(base, game_id, token, ("reveal",))
    status, answer = _call("POST", f"{url}/reveals", token, {"move": move, "salt": salt})
    if status not in (200, 201):
        raise RuntimeError(f"reveal: {status} {answer}")
    return committed, clock()


def _left_behind(folder: Path) -> list[int]:
    """Processes still running in the clone (none, after a clean shutdown)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if cwd == folder or folder in cwd.parents:
            pids.append(int(entry.name))
    return pids


def _traceback(text: str) -> str | None:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if "Traceback (most recent call last)" in line:
            return "\n".join(lines[max(0, index - 3) : index + 25])
    return None


def one_run(ref: str, cold_pip: bool, python: str | None, verbose: bool) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="stakeout-first-"))
    clone = root / "stakeout"
    # A newcomer's shell: none of the service's settings, no venv active, bytecode written.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STAKEOUT_", "VIRTUAL_ENV", "PYTHON"))
        and k not in {"REDIS_URL", "QUEUE_REDIS_URL", "PORT", "HOST", "MAKEFLAGS", "MFLAGS"}
    }
    port = _free_port()
    env["PORT"] = str(port)
    if cold_pip:
        env["PIP_CACHE_DIR"] = str(root / "pip-cache")
    base = f"http://127.0.0.1:{port}"
    figures: dict[str, Any] = {}
    started = time.monotonic()

    def clock() -> float:
        return time.monotonic() - started

    make: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(REPO), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", ref], check=True)
        figures["clone"] = clock()
        command = ["make", "run"] + ([f"PYTHON={python}"] if python else [])
        make = subprocess.Popen(
            command,
            cwd=clone,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: SIGINT to it is a Ctrl+C
        )
        output = Output(make.stdout, started)
        figures["venv"], _ = output.wait_for(VENV_DONE, READY_TIMEOUT)
        figures["install"], _ = output.wait_for(INSTALL_DONE, READY_TIMEOUT)
        _, line = output.wait_for(KEY_LINE, READY_TIMEOUT)
        match = KEY_LINE.search(line)
        assert match is not None
        key = match.group(1)
        _wait_ready(base, READY_TIMEOUT)
        figures["ready"] = clock()
        figures["commit"], figures["move"] = _first_move(base, key, clock)
        time.sleep(0.5)  # the bots' follow-ups of the move run; a shutdown meets them busy
        stopping = time.monotonic()
        os.killpg(make.pid, signal.SIGINT)
        try:
            make.wait(timeout=SHUTDOWN_TIMEOUT)
            figures["shutdown"] = time.monotonic() - stopping
        except subprocess.TimeoutExpired:
            figures["shutdown"] = float("inf")
        output.join(5)
        figures["exit"] = make.returncode
        figures["traceback"] = _traceback(output.text())
        figures["left"] = _left_behind(clone)
        if verbose:
            print(output.text())
    finally:
        if make is not None and make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
        for pid in _left_behind(clone):  # started by this run: an embedded Valkey left over
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ref", default="HEAD", help="the commit to clone (default HEAD)")
    parser.add_argument("--cold-pip", action="store_true", help="an empty pip cache each run")
    parser.add_argument("--python", help="make PYTHON=... (default: make's own choice)")
    parser.add_argument("--verbose", action="store_true", help="print make's output")
    args = parser.parse_args()
    sha = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", args.ref],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    cache = "empty" if args.cold_pip else "as on this machine"
    print(f"first start of {sha}, pip cache {cache}, {args.runs} run(s)")
    print("seconds from the clone's start to: " + ", ".join(STEPS) + "; then the shutdown")
    runs = []
    for number in range(1, args.runs + 1):
        figures = one_run(sha, args.cold_pip, args.python, args.verbose)
        runs.append(figures)
        steps = "  ".join(f"{step} {figures[step]:5.1f}" for step in STEPS)
        if figures["commit"] is not None:
            steps += f"  (a sealed step: committed at {figures['commit']:.1f})"
        print(
            f"  run {number}: {steps}  | shutdown {figures['shutdown']:.1f} s"
            f" (exit {figures['exit']})",
            flush=True,
        )
        if figures["traceback"]:
            print(f"    a traceback in the output:\n{figures['traceback']}")
        if figures["left"]:
            print(f"    processes left running after the shutdown: {figures['left']}")
    if len(runs) > 1:
        medians = "  ".join(f"{s} {statistics.median(r[s] for r in runs):5.1f}" for s in STEPS)
        shutdown = statistics.median(r["shutdown"] for r in runs)
        print(f"  median: {medians}  | shutdown {shutdown:.1f} s")
    tracebacks = sum(1 for r in runs if r["traceback"])
    print(f"  tracebacks: {tracebacks} of {len(runs)} runs")
    sys.exit(1 if tracebacks or any(r["left"] for r in runs) else 0)


if __name__ == "__main__":
    main()
