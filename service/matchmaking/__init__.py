"""Matchmaking: asynchronous tickets, grouped into games by a matcher on the workers."""
