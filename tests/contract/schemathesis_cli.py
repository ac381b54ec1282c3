"""The schemathesis CLI against a real server, every check and every phase: `make contract-cli`.

Starts `stakeout run` as `make run` does (an embedded Valkey in a fresh data directory, the
workers), on a free port, with the rate limit off and an API key of its own, then runs

    st run http://127.0.0.1:PORT/schema/openapi.json \\
        -H "Authorization: Bearer KEY" --seed SEED \\
        --phases examples,coverage,fuzzing,stateful

once per seed, from the repository's root so that schemathesis.toml applies: every check
(as `--checks all`, which would also override the file's one per-operation exemption), 422
an answer to schema-valid data the rules refuse, long polls allowed their 30 s. Exits 0
when no run found anything. docs/contract-releases.md says how to read the outcome.

    python -m tests.contract.schemathesis_cli [--seeds 11,1,2,3] [--max-examples N]
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PHASES = "examples,coverage,fuzzing,stateful"
DEFAULT_SEEDS = (11, 1, 2, 3)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# A first start on a loaded machine (make test runs two test processes beside it) can take
# more than a minute: the wait is for a condition, bounded generously.
def _wait_for(url: str, server: subprocess.Popen[bytes], timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"stakeout run exited with {server.returncode} before answering")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"stakeout run did not answer {url} within {timeout:g} s")


def start_server(data_dir: Path, port: int, key: str) -> subprocess.Popen[bytes]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "REDIS_CLUSTER", "QUEUE_REDIS_URL", "HOST"}
    }
    env.update(
        PORT=str(port),
        STAKEOUT_DATA_DIR=str(data_dir),
        STAKEOUT_API_KEYS=key,
        STAKEOUT_RATE_LIMIT_PER_MINUTE="0",
        STAKEOUT_API_PROCESSES="1",
        LOG_LEVEL="WARNING",
    )
    return subprocess.Popen(
        [str(BIN / "stakeout"), "run"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def st_command(base: str, key: str, seed: int, max_examples: int | None) -> list[str]:
    command = [
        str(BIN / "st"),
        "run",
        f"{base}/schema/openapi.json",
        "-H",
        f"Authorization: Bearer {key}",
        "--seed",
        str(seed),
        "--phases",
        PHASES,
    ]
    if max_examples is not None:
        command += ["--max-examples", str(max_examples)]
    return command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default=",".join(map(str, DEFAULT_SEEDS)))
    parser.add_argument("--max-examples", type=int, default=None)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    key = "contract-" + secrets.token_hex(8)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    failed: list[int] = []
    with tempfile.TemporaryDirectory(prefix="stakeout-contract-") as data_dir:
        server = start_server(Path(data_dir), port, key)
        try:
            _wait_for(f"{base}/schema/openapi.json", server)
            for seed in seeds:
                command = st_command(base, key, seed, args.max_examples)
                shown = " ".join(command).replace(key, "KEY")
                print(f"$ {shown}", flush=True)
                started = time.monotonic()
                code = subprocess.call(command, cwd=ROOT)
                print(f"seed {seed}: exit {code} in {time.monotonic() - started:.0f} s", flush=True)
                if code != 0:
                    failed.append(seed)
        finally:
            stop_server(server)
    if failed:
        print(f"schemathesis found something with seeds {failed}", file=sys.stderr)
        return 1
    print(f"schemathesis found nothing with seeds {seeds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
