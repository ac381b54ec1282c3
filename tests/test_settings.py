"""Settings from the environment: the bot budget, and bad values refused by name."""

from __future__ import annotations

import dataclasses

import pytest

from domain.budget import Budget
from service.follow_ups.jobs import JOB_TIMEOUT_SECONDS, MATCH_QUEUE, QUEUES, WEBHOOK_QUEUE
from service.settings import ALL_QUEUES, ENVIRONMENT, MAX_BOT_SECONDS, Settings
from stakeout.cli import main


def test_the_bot_budget_defaults_to_one_second_at_the_tuned_effort() -> None:
    assert Settings.from_env({}).bot_budget == Budget(seconds=1.0, effort=1.0)


def test_the_bot_budget_is_read_from_the_environment() -> None:
    settings = Settings.from_env({"STAKEOUT_BOT_SECONDS": "2.5", "STAKEOUT_BOT_EFFORT": "4"})
    assert settings.bot_budget == Budget(seconds=2.5, effort=4.0)


def test_a_bot_always_thinks_well_inside_its_jobs_timeout() -> None:
    assert MAX_BOT_SECONDS * 1.5 <= JOB_TIMEOUT_SECONDS


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("STAKEOUT_BOT_SECONDS", "0"),
        ("STAKEOUT_BOT_SECONDS", "21"),
        ("STAKEOUT_BOT_SECONDS", "nan"),
        ("STAKEOUT_BOT_SECONDS", "soon"),
        ("STAKEOUT_BOT_EFFORT", "-1"),
        ("STAKEOUT_BOT_EFFORT", "1000"),
        ("PORT", "eighty"),
        ("STAKEOUT_WEBHOOK_BACKOFF", "5,,30"),
        ("STAKEOUT_TRUSTED_PROXIES", "10.0.0.0/33"),
        ("STAKEOUT_TRUSTED_PROXIES", "ingress"),
        ("STAKEOUT_RATE_LIMIT_BURST", "0"),
        ("STAKEOUT_WEBHOOK_TIMEOUT_SECONDS", "30"),
        ("STAKEOUT_WEBHOOK_TIMEOUT_SECONDS", "0"),
        ("STAKEOUT_ABANDON_SECONDS", "-1"),
        ("STAKEOUT_MAX_ACTIVE_GAMES", "many"),
        ("STAKEOUT_MAX_WAITING_TICKETS", "-1"),
        ("STAKEOUT_MAX_PLAYER_TICKETS", "few"),
        ("STAKEOUT_WORKER_QUEUES", "bots,mail"),
        ("STAKEOUT_WORKER_QUEUES", ","),
        ("STAKEOUT_RUN_WORKERS", "bots;mail"),
        ("STAKEOUT_RUN_WORKERS", ";"),
        ("STAKEOUT_API_PROCESSES", "-1"),
        ("STAKEOUT_API_PROCESSES", "many"),
        ("WEB_CONCURRENCY", "many"),
        ("STAKEOUT_METRICS_PORT", "70000"),
        ("STAKEOUT_KEEP_ALIVE_SECONDS", "0"),
    ],
)
def test_bad_values_are_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name):
        Settings.from_env({name: value})


def test_the_cli_reports_a_bad_setting_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STAKEOUT_BOT_SECONDS", "-3")
    with pytest.raises(SystemExit) as exited:
        main(["serve"])
    assert exited.value.code == 2
    assert "STAKEOUT_BOT_SECONDS" in capsys.readouterr().err


def test_trusted_proxies_are_networks() -> None:
    settings = Settings.from_env({"STAKEOUT_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7,fd00::/8"})
    assert [str(n) for n in settings.trusted_proxies] == [
        "10.0.0.0/8",
        "192.168.1.7/32",
        "fd00::/8",
    ]


def test_a_worker_serves_the_rq_queues_the_delivery_queue_and_the_matchmaker() -> None:
    # The deliveries and the matchmaker are not RQ queues (the deliveries a stream of their
    # own), but a worker is told to run them by the same name: `stakeout worker --queues
    # webhooks`, `--queues matchmaking`.
    assert (*QUEUES, WEBHOOK_QUEUE, MATCH_QUEUE) == ALL_QUEUES


@pytest.mark.parametrize(("cores", "expected"), [(1, 1), (2, 1), (6, 5)])
def test_run_leaves_a_core_to_the_store_and_workers_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch, cores: int, expected: int
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert Settings.from_env({}).processes == expected
    assert Settings.from_env({"WEB_CONCURRENCY": "3"}).processes == 3
    told = {"WEB_CONCURRENCY": "3", "STAKEOUT_API_PROCESSES": "2"}
    assert Settings.from_env(told).processes == 2


def test_the_api_server_is_a_setting() -> None:
    assert Settings.from_env({}).api_server == "uvicorn"
    assert Settings.from_env({"STAKEOUT_API_SERVER": " Granian "}).api_server == "granian"
    with pytest.raises(ValueError, match="STAKEOUT_API_SERVER"):
        Settings.from_env({"STAKEOUT_API_SERVER": "gunicorn"})


def test_workers_and_their_queues_are_settings() -> None:
    settings = Settings.from_env(
        {"STAKEOUT_RUN_WORKERS": "bots;scoring,bots;webhooks", "STAKEOUT_WORKER_QUEUES": "bots"}
    )
    assert settings.run_workers == (("bots",), ("scoring", "bots"), ("webhooks",))
    assert settings.worker_queues == ("bots",)
    default = Settings.from_env({})
    assert default.run_workers == (("bots", "scoring"), ("webhooks",), ("matchmaking",))
    assert default.worker_queues == ("bots", "scoring", "matchmaking"), "webhooks apart"
    assert default.metrics_port == 0


def test_every_setting_the_environment_gives_is_a_field_and_read_from_its_variable() -> None:
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    assert set(ENVIRONMENT) <= set(fields)
    given = Settings.from_env({"STAKEOUT_SNAPSHOT_EVERY": "7", "WEB_CONCURRENCY": "3"})
    assert (given.snapshot_every, given.api_processes) == (7, 3)
    # The first variable set wins, and only it is read.
    both = {"STAKEOUT_API_PROCESSES": "2", "WEB_CONCURRENCY": "many"}
    assert Settings.from_env(both).api_processes == 2
    assert Settings.from_env({"STAKEOUT_HOT_ROUTES": "0"}).hot_routes is False
    assert Settings.from_env({"REDIS_URL": ""}).redis_url is None
    assert Settings.from_env({"STAKEOUT_API_KEYS": " a, ,b "}).api_keys == ("a", "b")
