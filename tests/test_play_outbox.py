"""The play socket's send buffer is bounded: frames past `SEND_BUFFER` unread close the
socket as a slow reader (4101) instead of growing the process's memory, and nothing is put
after the close is decided. (End to end, the kernel's socket buffers take megabytes of views
before the buffer fills; this is the rule itself.)"""

from __future__ import annotations

import asyncio

from service.api.v1.play import CLOSE_SLOW_READER, SEND_BUFFER, SendBuffer


def test_a_reader_too_slow_is_closed_and_sent_nothing_more() -> None:
    async def fill() -> SendBuffer:
        outbox = SendBuffer()
        for version in range(SEND_BUFFER):
            outbox.put({"type": "view", "version": version})
        assert outbox.close is None
        outbox.put({"type": "pong"})
        outbox.put({"type": "pong"})
        return outbox

    outbox = asyncio.run(fill())
    assert outbox.close == (CLOSE_SLOW_READER, "slow-reader")
    assert outbox.closing.is_set()
    assert outbox.frames.qsize() == SEND_BUFFER


def test_the_first_reason_to_close_stands() -> None:
    outbox = SendBuffer()
    outbox.end(4100, "game-over")
    outbox.end(1001, "going-away")
    assert outbox.close == (4100, "game-over")
