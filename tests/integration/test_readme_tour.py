"""The README's five-minute tour, as a reader follows it: its shell blocks, in order, in one
bash, against `stakeout run` (embedded Valkey, workers, an API process) with `PORT` and
`KEY` set, as the tour says. Every command of every block must succeed (`set -e`, and the
tour's curl calls fail on a 4xx), and the sealed step's reveal must be accepted: the
commitment is made from the view as it is at the commit (issue 31, item 1)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import auth
from tests.processes import Processes, Run, free_port, processes, run_env

__all__ = ["processes"]

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
DONE = "::tour block {} done"


def tour_blocks() -> list[str]:
    """The ```sh blocks of the README's tour section, in order."""
    start = README.index("\n## A five-minute tour")
    end = README.index("\n## ", start + 1)
    return re.findall(r"^```sh\n(.*?)^```$", README[start:end], re.S | re.M)


def test_the_tour_needs_only_curl_and_python3_and_uses_port_and_key() -> None:
    blocks = tour_blocks()
    assert len(blocks) >= 7, blocks
    text = "\n".join(blocks)
    assert "$PORT" in blocks[0]
    assert "$KEY" in text
    assert ":8000" not in text  # the port comes from $PORT
    # jq is not on a fresh machine (nor installed by the Makefile).
    assert not re.search(r"\bjq\b", text)
    for needed in ("/v1/games", "/moves", "/commitments", "/reveals"):
        assert needed in text
    for needed in ("/v1/matchmaking/tickets", "/v1/players/", "/v1/leaderboards/", "around="):
        assert needed in text


def _start_run(processes: Processes, data: Path) -> Run:
    """`stakeout run` as `make run` starts it, with its own port and data folder (its URL,
    and the API key it made and kept there)."""
    env = run_env(data, free_port(), api_key=False, STAKEOUT_API_PROCESSES="1")
    del env["STAKEOUT_RATE_LIMIT_PER_MINUTE"]  # the default rate limit
    return processes.run(env)


def _ctrl_c(run: subprocess.Popen[bytes]) -> None:
    """Stop `stakeout run` as a reader does (Ctrl+C: SIGINT to its process group), so it
    stops its embedded Valkey too (that one runs in a session of its own)."""
    if run.poll() is None:
        os.killpg(run.pid, signal.SIGINT)
        run.wait(timeout=60)


def _reader_env(port: str, key: str) -> dict[str, str]:
    """A reader's shell: their PATH and home, PORT and KEY; nothing of the test's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAKEOUT_", "REDIS"))}
    env.update(PORT=port, KEY=key)
    return env


def _tour_folder(folder: Path) -> Path:
    """The temporary folder the tour's first block moved to (under ``folder``'s tmp/)."""
    made = [path for path in (folder / "tmp").iterdir() if path.is_dir()]
    assert len(made) == 1, made
    return made[0]


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def _follow_the_tour(
    blocks: list[str], base: str, key: str, folder: Path
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """The blocks run in order in one bash in ``folder``, and then the first game's event
    log as its seat sees it (empty if the tour did not get as far as making it)."""
    script = "set -euo pipefail\n" + "".join(
        f"{block}\necho '{DONE.format(i)}'\n" for i, block in enumerate(blocks)
    )
    # In the reader's folder (the clone: `.data/api-key` is there too), as the tour says;
    # its first block moves to a temporary folder, made here under ``temporary``.
    temporary = folder / "tmp"
    temporary.mkdir()
    try:
        result = subprocess.run(
            ["bash", "-c", script],
            cwd=folder,
            env={**_reader_env(base.rsplit(":", 1)[1], key), "TMPDIR": str(temporary)},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired as stuck:
        so_far = stuck.stdout.decode() if isinstance(stuck.stdout, bytes) else stuck.stdout
        raise AssertionError(f"the tour did not finish in 300 s:\n{so_far}") from None
    # The tour's files are in its temporary folder, none in the clone.
    assert not list(folder.glob("*.json")), sorted(p.name for p in folder.glob("*.json"))
    if not list(temporary.glob("*/game.json")):
        return result, []
    game = _json(_tour_folder(folder) / "game.json")
    answer = httpx.get(
        f"{base}/v1/games/{game['id']}/events",
        params={"limit": 500},
        headers=auth(game["seats"][0]["token"]),
    )
    assert answer.status_code == 200, answer.text
    return result, list(answer.json()["events"])


def test_the_readme_tour_runs_in_order_against_a_real_server(
    processes: Processes, tmp_path: Path
) -> None:
    blocks = tour_blocks()
    run = _start_run(processes, tmp_path / ".data")
    try:
        result, events = _follow_the_tour(blocks, run.base, run.key, tmp_path)
    finally:
        _ctrl_c(run.proc)
    output = result.stdout + result.stderr
    finished = [i for i in range(len(blocks)) if DONE.format(i) in result.stdout]
    failed = len(finished)
    where = f"block {failed} failed (exit {result.returncode}):\n"
    where += f"{blocks[failed] if failed < len(blocks) else ''}\n--- output ---\n{output[-4000:]}"
    assert result.returncode == 0, where
    assert finished == list(range(len(blocks))), where
    assert "reveal-mismatch" not in output
    # `look` at the reveal says what to do, not an empty `legal: []` (issue #39, item 8).
    assert "nothing to choose: reveal the move you sealed, with its salt" in result.stdout
    assert not re.search(r"legal:\s*\[\]", result.stdout), result.stdout[-2000:]

    # The first game: the move was applied, and the sealed step's reveal was accepted and
    # stood (a revealed move that was not legal would be forfeited).
    mine = [e["event"] for e in events if e["event"].get("seat") == 0]
    kinds = [e["type"] for e in mine]
    assert "fbi.nothing_released" in kinds or "fbi.card_released" in kinds, kinds
    committed = [e for e in mine if e["type"] == "seal.committed"]
    revealed = [e for e in mine if e["type"] == "seal.revealed"]
    assert len(committed) == 1, kinds
    assert len(revealed) == 1, kinds
    assert committed[0]["step"] == revealed[0]["step"] == "t1.agents"
    assert "seal.forfeited" not in kinds, kinds

    # The quick match: Ann's finished game was rated and she is on the leaderboard, above
    # Bo, who resigned (a loss, whatever his seat's bot made of it: issue 35).
    player = _json(_tour_folder(tmp_path) / "player.json")
    assert player["external_id"] == "u-ann"
    assert [(r["game"], r["games"], r["wins"]) for r in player["ratings"]] == [("fbi", 1, 1)]
    board = [e["external_id"] for e in _json(_tour_folder(tmp_path) / "board.json")["entries"]]
    assert board == ["u-ann", "u-bo"], board
