"""A seat's desk: the answers to a caller's view of a game and to a seat's acts, below the
HTTP layer (no web framework here: the workers load this package's neighbours, never Litestar)."""
