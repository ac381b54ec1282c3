"""Checking a webhook delivery's signature, for receivers (docs/api-guide.md, "Webhooks").

``Stakeout-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>``
"""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "Stakeout-Signature"
DELIVERY_HEADER = "Stakeout-Delivery"  # the notification's id: de-duplicate on it
EVENT_HEADER = "Stakeout-Event"


def sign(secret: str, body: bytes, timestamp: int) -> str:
    """The header value the server sends for ``body`` at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify_signature(
    secret: str, header: str, body: bytes, *, tolerance: float = 300, now: float | None = None
) -> bool:
    """True when ``header`` signs the raw ``body`` with ``secret`` within ``tolerance``
    seconds of now (an older timestamp is a replay). Never raises on a malformed header."""
    try:
        parts = dict(item.strip().split("=", 1) for item in header.split(","))
        timestamp, given = int(parts["t"]), parts["v1"]
    except (KeyError, ValueError):
        return False
    expected = sign(secret, body, timestamp).rsplit("v1=", 1)[1]
    fresh = abs((time.time() if now is None else now) - timestamp) <= tolerance
    return fresh and hmac.compare_digest(expected, given)
