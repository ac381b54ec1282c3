"""A game's version as an entity tag: the ETag of a view and of its events, and If-None-Match
against it."""

from __future__ import annotations


def etag(version: int) -> str:
    return f'"{version}"'


def not_modified(if_none_match: str | None, version: int) -> bool:
    """Whether ``If-None-Match`` names the current version (RFC 9110 §13.1.2: weak
    comparison; ``*`` matches any current representation)."""
    if if_none_match is None:
        return False
    current = etag(version)
    for tag in if_none_match.split(","):
        tag = tag.strip()
        if tag == "*" or tag.removeprefix("W/") == current:
            return True
    return False
