"""Request ids and append nonces: unique within a process and across a fork."""

from __future__ import annotations

import os
import re

from service.store import unique_ids


def test_ids_in_one_process_never_repeat_and_share_the_process_prefix() -> None:
    ids = [unique_ids.request_id() for _ in range(1000)]
    nonces = [unique_ids.nonce() for _ in range(1000)]
    assert len(set(ids + nonces)) == 2000
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    assert {i[:16] for i in ids + nonces} == {ids[0][:16]}


def test_a_forked_child_draws_a_prefix_of_its_own() -> None:
    parent = unique_ids.nonce()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, then out without running the parent's cleanup
        os.write(write, unique_ids.request_id().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    # Same prefix and same counter after a plain fork would repeat the parent's next id.
    assert child[:16] != parent[:16]
    assert child != unique_ids.request_id()
