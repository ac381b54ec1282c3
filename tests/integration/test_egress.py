"""Webhooks reach public addresses only: refused at registration, refused again at connect.

The receivers are real local HTTP servers on loopback, a private address, which is exactly
what a delivery must not reach unless the deployment allows it.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterator
from dataclasses import replace
from ipaddress import ip_address
from pathlib import Path
from typing import Any

import httpcore
import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.notify.delivery_client import DeliveryClient
from service.notify.egress import is_public
from service.settings import Settings
from tests.conftest import start_worker, stop_worker
from tests.helpers import API_KEY, auth, wait_for
from tests.receiver import Receiver

NOT_PUBLIC = [
    "127.0.0.1",  # loopback
    "10.1.2.3",  # private
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",  # link-local: the cloud metadata service
    "100.64.0.1",  # carrier-grade NAT
    "0.0.0.0",
    "224.0.0.1",  # multicast
    "255.255.255.255",
    "::1",
    "fe80::1",
    "fc00::1",  # unique local
    "::ffff:127.0.0.1",  # IPv4-mapped loopback
    "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
    "2002:a00:1::",  # 6to4 of 10.0.0.1
    # What Python 3.11's ipaddress calls global, and is not (IPv6: 2000::/3 only).
    "::7f00:1",  # IPv4-compatible (deprecated) form of 127.0.0.1
    "::808:808",  # ... and of a public address: not a form anyone routes
    "64:ff9b:1::a00:1",  # local-use NAT64 (RFC 8215)
    "64:ff9b:1::808:808",
    "fec0::1",  # site-local (deprecated)
    "fec0:1234::1",
    "2001::1",  # Teredo
    "2001:2::1",  # benchmarking
    "2001:20::1",  # ORCHIDv2
    "2001:db8::1",  # documentation
    "3fff::1",
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "4000::1",  # unassigned, outside 2000::/3
    "100::1",  # discard-only
    "ff02::1",  # multicast
]
PUBLIC = [
    "8.8.8.8",
    "93.184.215.14",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",  # 6to4 of 8.8.8.8
]


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_private_and_special_addresses_are_not_public(address: str) -> None:
    assert not is_public(ip_address(address))


@pytest.mark.parametrize("address", PUBLIC)
def test_globally_routable_addresses_are_public(address: str) -> None:
    assert is_public(ip_address(address))


@pytest.fixture
def strict_client(settings: Settings) -> Iterator[TestClient[Any]]:
    """The API as deployed: private webhook targets refused."""
    with TestClient(app=create_app(replace(settings, webhook_allow_private=False))) as client:
        yield client


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",  # a name that resolves to loopback
        "https://[::1]/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.7:6379/",
        "http://0/",
        "http://[::ffff:192.168.0.1]/",
        "http://[::7f00:1]:6379/",
        "http://[64:ff9b:1::a00:1]/",
        "https://[fec0::1]/hook",
    ],
)
def test_registering_a_private_target_is_refused_and_stores_nothing(
    strict_client: Any, url: str
) -> None:
    response = strict_client.post(
        "/v1/webhooks", json={"url": url, "events": ["seat.awaited"]}, headers=auth(API_KEY)
    )
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == "urn:stakeout:problem:webhook-target-refused"
    # The refusal names the setting a developer trying webhooks locally needs.
    assert "STAKEOUT_WEBHOOK_ALLOW_PRIVATE=1" in response.json()["detail"]
    listed = strict_client.get("/v1/webhooks", headers=auth(API_KEY)).json()["webhooks"]
    assert listed == []


@pytest.mark.parametrize("url", ["https://:443/", "http://[::1/hook"])
def test_a_url_that_is_not_one_is_refused(strict_client: Any, url: str) -> None:
    response = strict_client.post(
        "/v1/webhooks", json={"url": url, "events": ["seat.awaited"]}, headers=auth(API_KEY)
    )
    assert response.status_code == 422, response.text
    assert response.json()["type"] == "urn:stakeout:problem:webhook-url-invalid"


@pytest.mark.parametrize("url", ["http://I\u00a1x/hook", "http://a\u001cb/", "http://a b/"])
def test_a_url_outside_the_contracts_pattern_is_malformed(strict_client: Any, url: str) -> None:
    """Printable ASCII only, as the contract's pattern says (the same in JSON Schema's and
    Python's regular expressions): a URL with anything else is a malformed request."""
    response = strict_client.post(
        "/v1/webhooks", json={"url": url, "events": ["seat.awaited"]}, headers=auth(API_KEY)
    )
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "urn:stakeout:problem:invalid-request"


def test_a_public_target_is_accepted(strict_client: Any) -> None:
    response = strict_client.post(
        "/v1/webhooks",
        json={"url": "https://93.184.215.14/hook", "events": ["seat.awaited"]},
        headers=auth(API_KEY),
    )
    assert response.status_code == 201, response.text


async def _post(url: str, allow_private: bool) -> int:
    async with DeliveryClient(allow_private) as client, client.post(url, b"{}", {}) as response:
        return response.status


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_the_delivery_client_never_connects_to_a_private_address(host: str) -> None:
    receiver = Receiver()
    try:
        port = receiver.url.split(":")[2].split("/")[0]
        url = f"http://{host}:{port}/hook"
        with pytest.raises(httpcore.ConnectError, match="no public address"):
            asyncio.run(_post(url, allow_private=False))
        assert receiver.requests == []
        # Allowed, the same request arrives with its Host intact. (localhost may resolve to
        # ::1 first; the receiver listens on IPv4 only: each allowed address is tried.)
        assert asyncio.run(_post(url, allow_private=True)) == 204
        headers, _ = receiver.requests[0]
        assert headers["Host"] == f"{host}:{port}"
    finally:
        receiver.close()


TLS = Path(__file__).resolve().parents[1] / "tls"
CERTIFICATE, KEY = TLS / "localhost-cert.pem", TLS / "localhost-key.pem"


async def _post_tls(url: str, trusted: ssl.SSLContext | None) -> int:
    client = DeliveryClient(allow_private=True, ssl_context=trusted)
    async with client, client.post(url, b"{}", {}) as response:
        return response.status


def test_deliveries_over_tls_verify_the_certificate_against_the_url_host() -> None:
    """A test certificate for localhost: trusted, it is accepted for localhost only; not
    trusted (the default: certifi's authorities), it is refused."""
    receiver = Receiver(tls=(CERTIFICATE, KEY))
    trusting = ssl.create_default_context(cafile=str(CERTIFICATE))
    try:
        assert asyncio.run(_post_tls(receiver.url, trusting)) == 204
        by_address = receiver.url.replace("localhost", "127.0.0.1")
        with pytest.raises(httpcore.ConnectError, match=r"not valid for '127\.0\.0\.1'"):
            asyncio.run(_post_tls(by_address, trusting))
        with pytest.raises(httpcore.ConnectError, match="certificate verify failed"):
            asyncio.run(_post_tls(receiver.url, None))
        assert len(receiver.requests) == 1
    finally:
        receiver.close()


def test_a_worker_refuses_to_deliver_to_a_private_address(settings: Settings) -> None:
    """Registered while allowed (or before DNS changed), delivered by a strict worker."""
    receiver = Receiver()
    lenient = replace(settings, webhook_allow_private=True)
    worker = start_worker(settings.redis_url or "")
    deliveries = start_worker(
        settings.redis_url or "", queues="webhooks", STAKEOUT_WEBHOOK_ALLOW_PRIVATE="0"
    )
    try:
        with TestClient(app=create_app(lenient)) as api:
            hook = api.post(
                "/v1/webhooks",
                json={"url": receiver.url, "events": ["game.finished"]},
                headers=auth(API_KEY),
            ).json()
            seats = [{"type": "bot", "level": "random"} for _ in range(2)]
            created = api.post(
                "/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY)
            )
            assert created.status_code == 201, created.text
            attempts = wait_for(
                lambda: api.get(
                    f"/v1/webhooks/{hook['id']}/deliveries", headers=auth(API_KEY)
                ).json()["attempts"],
                timeout=120,
            )
        assert attempts[0]["delivered"] is False
        assert "no public address" in attempts[0]["error"]
        assert receiver.requests == []
    finally:
        stop_worker(worker)
        stop_worker(deliveries)
        receiver.close()
