"""Players of an API key's games: ratings per game kind, leaderboards, each player's games."""
