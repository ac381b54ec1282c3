"""`stakeout run` at a terminal, as a developer meets it (issue 39, items 2 and 3): real
`stakeout run` processes, each with its own data folder and port.

- A second run in the same folder, a taken port and a Valkey left behind by a killed run
  each end in one sentence before any banner (or the leftover is taken over), never a
  traceback.
- `stakeout banner` prints a live run's banner again, and says so when none runs.
- On a terminal (a pseudo-terminal here) the logs are readable text lines; elsewhere JSON
  lines. Neither carries colour codes, nor RQ's line per job at the default level.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from tests.helpers import auth, wait_for
from tests.processes import ROOT, Processes, child_processes, free_port, processes, run_env

__all__ = ["processes"]

RUN = [sys.executable, "-m", "stakeout.cli", "run"]
BANNER = [sys.executable, "-m", "stakeout.cli", "banner"]
# A text log line: the local time, the level, the logger and its message.
TEXT_LINE = re.compile(r"^\d\d:\d\d:\d\d (DEBUG|INFO|WARNING|ERROR|CRITICAL) +\S+: ")


def _env(data: Path, port: int, **extra: str) -> dict[str, str]:
    """`make run`'s environment: the embedded Valkey and a kept key in ``data``."""
    return run_env(data, port, api_key=False, **{"STAKEOUT_API_PROCESSES": "1", **extra})


def _refused(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A run that should refuse: it must end by itself, quickly, with its one sentence."""
    return subprocess.run(
        RUN, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )


def _one_sentence(result: subprocess.CompletedProcess[str]) -> str:
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 1, output
    assert "Traceback" not in output, output
    assert "stakeout is starting" not in output, output  # before any banner
    assert len(output.splitlines()) == 1, output
    assert output.endswith("."), output
    return output


def _bot_game(base: str, key: str) -> str:
    """A two-seat FBI game with a human seat left waiting and a bot: its id."""
    created = httpx.post(
        f"{base}/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}, {"type": "bot", "level": "random"}]},
        headers=auth(key),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def test_a_second_run_in_the_same_folder_refuses_and_banner_prints_the_first_again(
    processes: Processes, tmp_path: Path
) -> None:
    data = tmp_path / ".data"
    port = free_port()
    started = processes.run(_env(data, port, LOG_LEVEL="INFO"))
    first, key = started.proc, started.key

    second = _refused(_env(data, free_port()))
    sentence = _one_sentence(second)
    assert f"pid {first.pid}" in sentence, sentence
    assert "make banner" in sentence, sentence

    banner = subprocess.run(
        BANNER, env=_env(data, port), cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert banner.returncode == 0, banner.stderr
    assert f"stakeout is running on http://127.0.0.1:{port}" in banner.stdout
    assert f"API key:      {key}" in banner.stdout
    assert f"http://127.0.0.1:{port}/web/" in banner.stdout

    # Not on a terminal, every line after the banner is one JSON object, no colour codes.
    log = processes.log_of(first).read_text(errors="replace")
    after_banner = log.split("(embedded, also on", 1)[1].splitlines()[1:]
    lines = [line for line in after_banner if line.strip()]
    assert lines, log
    for line in lines:
        assert isinstance(json.loads(line), dict), line
    assert "\x1b" not in log

    assert processes.stop(first, signal.SIGINT) == 0
    gone = subprocess.run(
        BANNER, env=_env(data, port), cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert gone.returncode == 1
    assert "No stakeout run is running" in gone.stderr, gone.stderr


def test_a_taken_port_is_one_sentence_before_any_banner(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        sentence = _one_sentence(_refused(_env(tmp_path / ".data", port)))
    assert f"Port {port} on 127.0.0.1 is already taken" in sentence, sentence
    assert f"PORT={port + 1}" in sentence
    # Refused before anything started: no Valkey, no key made.
    assert not (tmp_path / ".data" / "valkey").exists()
    assert not (tmp_path / ".data" / "api-key").exists()


def _alive(pid: int) -> bool:
    try:
        state = (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_runs_workers_stop_and_the_next_run_takes_its_valkey_over(
    processes: Processes, tmp_path: Path
) -> None:
    data = tmp_path / ".data"
    port = free_port()
    env = _env(data, port)
    started = processes.run(env)
    killed, base, key = started.proc, started.base, started.key
    game = _bot_game(base, key)
    children = child_processes(killed.pid, zombies=False)
    workers = [p for p, c in children.items() if "stakeout.cli worker" in c]
    valkey = next(p for p, c in children.items() if "valkey" in c)
    assert len(workers) == 3, children
    try:
        killed.send_signal(signal.SIGKILL)  # the run alone, as `kill -9` does
        killed.wait(timeout=10)
        # Its workers notice they are no one's and stop; its Valkey (a session of its own)
        # is left, holding the folder's socket and AOF.
        wait_for(lambda: not any(_alive(p) for p in workers), timeout=30, interval=0.2)
        assert _alive(valkey)

        restarted = processes.run(env)
        again, base = restarted.proc, restarted.base
        log = processes.log_of(again).read_text(errors="replace")
        assert log.lstrip().startswith(f"Stopped the embedded Valkey (pid {valkey})"), log
        assert "Traceback" not in log
        assert not _alive(valkey)
        # Nothing acknowledged was lost: the game made before the kill is there.
        seen = httpx.get(f"{base}/v1/games", headers=auth(key), timeout=30).json()
        assert game in [g["id"] for g in seen["games"]]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(valkey, signal.SIGKILL)


def _read_all(fd: int, into: list[bytes]) -> None:
    with contextlib.suppress(OSError):  # EIO once the terminal's last writer is gone
        while chunk := os.read(fd, 65536):
            into.append(chunk)


@pytest.mark.slow
def test_on_a_terminal_the_logs_are_text_lines_without_colour_codes_or_rq_chatter(
    processes: Processes, tmp_path: Path
) -> None:
    """`make run` in a terminal: every process writes to a (pseudo-)terminal, so `auto`
    picks text, and RQ, which colours its messages on a terminal, is heard only when it
    warns; the bots play (so RQ has jobs to chatter about) and a bad request is logged."""
    data = tmp_path / ".data"
    port = free_port()
    env = _env(data, port, LOG_LEVEL="INFO")
    env.pop("STAKEOUT_LOG_FORMAT", None)
    controller, terminal = pty.openpty()
    run = subprocess.Popen(
        RUN, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal,
        start_new_session=True,
    )  # fmt: skip
    os.close(terminal)
    processes.started.append((run, tmp_path / "pty-run.log"))  # stopped at the end
    output: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(controller, output), daemon=True)
    reader.start()
    try:
        base = f"http://127.0.0.1:{port}"
        processes.wait_ready(run, base, timeout=120)
        key = (data / "api-key").read_text().strip()
        unknown = httpx.get(f"{base}/v1/games/{'f' * 24}", headers=auth(key), timeout=30)
        assert unknown.status_code == 404, unknown.text
        bots = httpx.post(
            f"{base}/v1/games",
            json={"game": "fbi", "seats": [{"type": "bot", "level": "random"}] * 3},
            headers=auth(key),
            timeout=30,
        )
        assert bots.status_code == 201, bots.text
        played = bots.json()["id"]

        def finished() -> bool:
            answer = httpx.get(f"{base}/v1/games/{played}", headers=auth(key), timeout=30)
            return answer.status_code == 200 and answer.json()["status"] == "finished"

        wait_for(finished, timeout=180, interval=0.5)
    finally:
        assert processes.stop(run, signal.SIGINT) == 0
        reader.join(timeout=10)
        os.close(controller)
    text = b"".join(output).decode(errors="replace").replace("\r\n", "\n")
    assert "\x1b" not in text, text[-3000:]
    logged = text.split("(embedded, also on", 1)[1].splitlines()[1:]
    lines = [line for line in logged if line.strip()]
    assert lines, text
    for line in lines:
        assert TEXT_LINE.match(line) or line.startswith((" ", "Traceback")), line
    assert not [line for line in lines if " rq." in line and " INFO " in line], text[-3000:]
    # The failed read is there, the successful requests are not.
    assert any("stakeout.access:" in line and " 40" in line for line in lines), text[-3000:]
    assert not any("stakeout.access: POST /v1/games 201" in line for line in lines)
    assert not any(" ok  (job=" in line for line in lines), text[-3000:]  # a job's line
    assert "Traceback" not in text
