"""What each field of the service's wire types means, for the contract (OpenAPI).

The domain's types carry their descriptions in code (struct docstrings, and
``Annotated[T, msgspec.Meta(description=...)]`` on fields); the service's own wire types are
described here, in one table beside them, and `service.http.openapi` fills in what the code
does not say. A test fails when a schema or a property of the contract has no description.

Key: the schema's title; ``""`` is the schema's own description.
"""

from __future__ import annotations

GAME_ID = "The game's id (24 hex digits), returned at creation."
VERSION = (
    "The game's version: the number of events in its log (1 after creation). It grows by "
    "one per event, so it orders everything that happened; it is also the ETag."
)
AWAITING = (
    "Every seat the game waits for now and what it must do (move, commit or reveal); "
    "empty when the game is over, abandoned or aborted. Several seats at once in a sealed step."
)
STATUS = (
    "waiting: a seat is open (nobody may act until every seat is claimed or filled); "
    "active: being played; finished: over, with a result; abandoned: ended by the sweep "
    "after nobody acted for STAKEOUT_ABANDON_SECONDS, without a result; aborted: ended by "
    "its creator without a result."
)
GAME_NAME = "The game: fbi, feds (The Feds) or bonnie_clyde (Bonnie and Clyde)."
SEATS = "Who plays each seat, indexed by seat number."
RESULT = (
    "The final result once the game is over; null before (and for an abandoned or aborted game)."
)
AT_MS = "When it was stored (epoch milliseconds, server clock)."
EVENT_KINDS = (
    "The notification kinds: seat.awaited (a human seat must act), game.finished (the game "
    "ended: played out, abandoned or aborted), result.recorded (the scoring job recorded "
    "the result), game.started (no seat is open any more), game.aborted (its creator "
    "aborted it), rematch.created (the next game of the table), match.found (a matchmaking "
    "ticket was seated in a new game)."
)

SEAT_NAME = "The seat's display name (up to 40 characters), or null."
EXTERNAL_ID = (
    "The client backend's own id of the seat's player (up to 200 characters), or null. "
    "Seen by everyone who may see the game: not a secret."
)
# What a request may say of who sits at a seat (service/play/identities.py, the one rule).
NAME_RULE = (
    "No control characters (NUL, newline, BEL, ...) and no bidirectional formatting "
    "characters (U+202E, ...): 422 `invalid-name`."
)
EXTERNAL_ID_RULE = (
    "Never empty, no `/`, no control characters and no bidirectional formatting "
    "characters: 422 `invalid-external-id`."
)
SEAT_NAME_GIVEN = f"The seat's display name (up to 40 characters), or null. {NAME_RULE}"
EXTERNAL_ID_GIVEN = (
    "Your backend's id of the seat's player (up to 200 characters), or null: its ratings, "
    "its place on the leaderboards and its history are keyed by it. Only an API key binds "
    "one (here, or claiming an open seat with the key); a claim with the invite code alone "
    f"cannot, and an open seat created with one keeps it whoever claims it. {EXTERNAL_ID_RULE} "
    "Seen by everyone who may see the game: not a secret."
)

DESCRIPTIONS: dict[str, dict[str, str]] = {
    "GameView": {
        "": "Everything the caller may know now: its seat's view (or a spectator's), who "
        "must act, and every move it may make. Every item of `legal` can be posted as is.",
        "id": GAME_ID,
        "game": GAME_NAME,
        "version": VERSION,
        "status": STATUS,
        "you": "The caller's seat number, or null for a spectator (no seat token).",
        "server_time_ms": "The server's time when it made this view (epoch milliseconds): "
        "count a seat's clock down from here rather than from the client's own clock.",
        "seats": SEATS,
        "awaiting": AWAITING,
        "legal": "Every move the caller's seat may post now, complete (post one as is to "
        "/moves, or commit to one in a sealed step); empty when it has nothing to do or "
        "must reveal.",
        "state": "What the caller may see of the game: a per-game view (its `game` field "
        "says which), redacted for the caller's seat.",
        "result": RESULT,
        "rematch": "The next game of this table once someone asked for a rematch "
        "(POST /v1/games/{id}/rematch); null before.",
    },
    "GameSummary": {
        "": "One game in a listing: the spectator's facts, without the board.",
        "id": GAME_ID,
        "game": GAME_NAME,
        "status": STATUS,
        "version": VERSION,
        "created_ms": "When the game was created (epoch milliseconds).",
        "seats": SEATS,
        "awaiting": AWAITING,
        "result": RESULT,
        "rated_places": "Each seat's place as ratings, wins and the players' histories count "
        "it, indexed by seat number (1, 1, 3 as in `result`): the result's places, except "
        "that every seat whose player resigned is placed below every seat whose player did "
        "not (they share the last place), wherever the bot that took it over finished. "
        "`result` still says what was played. Null while the game has no result.",
    },
    "SeatInfo": {
        "": "Who plays a seat now.",
        "seat": "The seat number (0-based, in creation order).",
        "type": "human: played by a client with the seat token; bot: by the server; open: "
        "waiting to be claimed with its invite.",
        "level": "The bot's level for a bot seat, null for a human seat.",
        "resigned": "True when the seat's player resigned: a bot (level random) plays it.",
        "name": SEAT_NAME,
        "external_id": EXTERNAL_ID,
        "open": "True while the seat waits to be claimed with its invite.",
        "presence": "Whether the seat's player is at the table now (docs/api-guide.md, "
        '"Presence"); null for a seat no person plays (a bot, a resigned or open seat), '
        "in the game list, once the game is over, and when the server's presence is off.",
        "substituted": "Set while a bot plays this seat's turns because its player has been "
        "away `away_seconds` (the game's option); null otherwise, and once the player is "
        "back.",
        "clock": "The seat's time bank in a game with a clock, null without one.",
    },
    "Presence": {
        "": "Whether a seat's player is at the table: online while a live feed of the seat "
        "is open (SSE, NDJSON, a long poll) or its token made a request in the last "
        "STAKEOUT_PRESENCE_SECONDS; away after that; never when it has not been seen. "
        "Not a fact of the game: it is not in the event log.",
        "status": "online, away or never (not seen since the game began).",
        "last_seen_ms": "When the seat was last seen (epoch milliseconds, server clock): "
        "about now while online; null when never seen.",
    },
    "Substitution": {
        "": "A bot plays the seat's turns (as time-outs, recorded as `turn.timed_out` or "
        "`seal.forfeited`) because its player was away too long; the seat is not resigned.",
        "since_ms": "When the first of those turns was played (epoch milliseconds).",
        "until": "back: it ends when the player is online again; the seat's next turn is theirs.",
    },
    "SeatClock": {
        "": "A seat's time bank, derived from the event log's times. In a view it is as "
        "of server_time_ms; in the game list and the lobby, as of the game's last change. "
        "While running, a client counts down from remaining_ms, starting at server_time_ms.",
        "remaining_ms": "What is left of the bank (milliseconds, 0 once its flag fell).",
        "running": "True while the game awaits the seat (its bank is being charged).",
    },
    "Invite": {
        "": "An open seat's invite. The code is a secret: whoever holds it may claim the "
        "seat (once; the seat's claimer may leave before the start, and the code works again).",
        "code": "The invite code (URL-safe text).",
        "url": "Where to look at it (GET) and claim it (POST): /v1/invites/{code}.",
    },
    "RematchLink": {
        "": "The next game of this table.",
        "game_id": "The rematch's game id (24 hex digits).",
    },
    "SeatGrant": {
        "": "A seat of a new game and, for a human seat, its token (shown this once).",
        "seat": "The seat number (0-based, in creation order).",
        "type": "human, bot or open (claimed later with its invite).",
        "level": "The bot's level for a bot seat, null for a human seat.",
        "token": "The seat token (human seats only; null for bots and open seats): send it as "
        "`Authorization: Bearer <token>` to play this seat. Shown only here.",
        "name": SEAT_NAME,
        "external_id": EXTERNAL_ID,
        "invite": "An open seat's invite (null for other seats): pass it on to the person "
        "who should claim the seat.",
    },
    "GameCreatedResponse": {
        "": "A new game: its id, version and seed commitment, and a token per human seat.",
        "id": GAME_ID,
        "game": GAME_NAME,
        "version": VERSION,
        "seed_commitment": "hex(SHA-256(seed)) of the game's secret shuffle seed: the "
        "replay publishes the seed once the game is over, so anyone can check every "
        "shuffle.",
        "seats": "Every seat, in order, with the human seats' tokens.",
    },
    "EventRecord": {
        "": "One event of the log, redacted for the caller.",
        "version": "The game's version after this event (its position in the log, from 1).",
        "event": "What happened; `type` says which event.",
        "at_ms": AT_MS,
    },
    "EventPage": {
        "": "A page of the event log, oldest first.",
        "events": "The events after `after`, at most `limit` of them.",
        "next_after": "Pass it as `after` to read the next page (the last version here).",
        "has_more": "True when more events follow this page.",
    },
    "MoveAccepted": {
        "": "The game's new version and the events the caller's act produced (redacted "
        "for the caller).",
        "version": VERSION,
        "events": "The events this act appended, as the caller may see them.",
        "awaiting": "Who the game waits for after the act, and for what (public: the "
        "same list the view's `awaiting` shows), so a client knows whose turn it is "
        "without reading the view. For a repeated Idempotency-Key: as the game is now.",
        "replayed": "True when this answers a repeated Idempotency-Key: nothing new was appended.",
        "view": "With `Prefer: return=representation` only: the caller's view after the act, "
        "as GET /v1/games/{id} gives it (then `Preference-Applied: return=representation`).",
    },
    "Commit": {
        "": "A sealed commitment: hex(SHA-256(UTF-8 'sealed-v1|{game_id}|{step}|{seat}|"
        "{move}|{salt}')), `move` being the move's JSON with sorted keys and no spaces. A "
        "seat may commit again until every seat has committed; the last one counts.",
        "commitment": "The hash, 64 lowercase hex digits.",
        "step": "Optional guard: the step the commitment is for (refused if the game is at "
        "another step).",
    },
    "Reveal": {
        "": "The committed move and its salt, once every seat of the step has committed.",
        "move": "The move exactly as committed (its canonical JSON is what was hashed).",
        "salt": "The commitment's salt: 16 to 64 random bytes as lowercase hex (32 to 128 "
        "digits), hashed as that text.",
    },
    "RulesDocument": {
        "": "A game's rules data: seats, bot levels, the numbers its rules use, its options "
        "and the house rules this server plays by.",
        "game": GAME_NAME,
        "title": "The game's printed title.",
        "min_seats": "Fewest seats a game may be created with.",
        "max_seats": "Most seats a game may be created with.",
        "bot_levels": "The bot levels a bot seat may have.",
        "rules": "The game's rules data (decks, tables, options, moves); `rules_of` says "
        "which game.",
        "house_rules": "What this server decided where the rulebook is silent, open or "
        "incomplete, in plain text.",
    },
    "GameList": {"": "The games this server runs.", "games": "Their names."},
    "GamePage": {
        "": "A page of the caller's games, newest first.",
        "games": "The games of this page.",
        "next_cursor": "Pass it as `cursor` for the next page; null on the last page.",
    },
    "Health": {
        "": "The process answers.",
        "status": "Always ok.",
        "store_regressions": "/readyz only: how many times this process found the event store "
        "behind its warm cache (a restore, a failover to a lagging replica) and reloaded.",
        "last_store_regression_ms": "/readyz only: when it last did (epoch milliseconds).",
        "outbox_lag": "/readyz only: changes of games whose follow-ups (bot turns, deadlines, "
        "webhooks, feed entries, scoring) no dispatcher has taken yet, over all outbox shards.",
        "outbox_pending": "/readyz only: changes a dispatcher has taken and not yet finished.",
    },
    "HumanSeat": {
        "": "A seat played by a client; its token is returned once, at creation.",
        "type": "human.",
        "name": SEAT_NAME_GIVEN,
        "external_id": EXTERNAL_ID_GIVEN,
    },
    "BotSeat": {
        "": "A seat played by the server's bot.",
        "type": "bot.",
        "level": "random (uniform over legal moves), greedy (a one-move heuristic) or expert "
        "(a search over what the seat can know).",
        "name": SEAT_NAME_GIVEN,
    },
    "OpenSeat": {
        "": "A seat someone claims later with its invite (returned at creation); the game "
        "waits (status waiting) until no seat is open, or until its creator fills the rest "
        "with bots.",
        "type": "open.",
        "name": SEAT_NAME_GIVEN,
        "external_id": EXTERNAL_ID_GIVEN,
    },
    "ReplayDocument": {
        "": "A finished (or abandoned or aborted) game, whole: every event unredacted, the "
        "act behind each batch and the secret seed; `stakeout verify` re-runs it.",
        "game_id": GAME_ID,
        "game": GAME_NAME,
        "seed": "The secret shuffle seed (hex); SHA-256 of it is `seed_commitment`.",
        "seed_commitment": "The commitment published at creation.",
        "events": "Every event, oldest first.",
    },
    "ReplayRecord": {
        "": "One event of a replay.",
        "version": "The event's position in the log, from 1.",
        "event": "The event, unredacted.",
        "act": "On the first event of each batch: the act that produced the batch (a move, "
        "commitment, reveal, timeout, resignation, abort or the result); null otherwise.",
        "at_ms": AT_MS,
    },
    "Stats": {
        "": "The calling API key's results, per game.",
        "games": "One entry per game with finished games.",
    },
    "GameStats": {
        "": "Results of one game's finished games.",
        "game": GAME_NAME,
        "finished": "How many of the key's games of this kind finished (counted once each).",
        "seats": "Per kind of seat: seats played and won.",
    },
    "SeatStats": {
        "": "Seats of one kind in finished games.",
        "kind": "human, or the bot level (random, greedy, expert).",
        "played": "Seats of this kind in finished games.",
        "won": "Of those, the seats among the winners.",
    },
    "RegisterWebhook": {
        "": "A webhook to register: where to POST, which notifications, which games.",
        "url": "Where deliveries are POSTed (http or https, a public address).",
        "events": EVENT_KINDS,
        "game_id": "Only this game's notifications; null for every game of the API key.",
    },
    "WebhookInfo": {
        "": "A registered webhook (its secret is never shown again).",
        "id": "The webhook's id.",
        "url": "Where deliveries are POSTed.",
        "events": EVENT_KINDS,
        "game_id": "Only this game's notifications; null for every game of the API key.",
        "created_ms": "When it was registered (epoch milliseconds).",
    },
    "WebhookCreated": {
        "": "A new webhook, with its signing secret (shown this once).",
        "id": "The webhook's id.",
        "url": "Where deliveries are POSTed.",
        "events": EVENT_KINDS,
        "game_id": "Only this game's notifications; null for every game of the API key.",
        "created_ms": "When it was registered (epoch milliseconds).",
        "secret": "The HMAC-SHA256 key that signs every delivery (Stakeout-Signature).",
    },
    "WebhookList": {"": "The API key's webhooks.", "webhooks": "Newest first."},
    "Attempt": {
        "": "One delivery attempt of a notification.",
        "delivery_id": "The notification's id (the same across retries).",
        "kind": "The notification kind.",
        "game_id": GAME_ID,
        "attempt": "1 for the first attempt, then 2, 3, … for retries.",
        "at_ms": "When it was made (epoch milliseconds).",
        "duration_ms": "How long it took (milliseconds).",
        "status_code": "The receiver's HTTP status, null when none came.",
        "error": "Why it failed (no answer, refused address, …), null on success.",
        "delivered": "True when the receiver answered 2xx.",
    },
    "AttemptPage": {
        "": "A page of delivery attempts, newest first.",
        "attempts": "The attempts of this page.",
        "next_offset": "Pass it as `offset` for the next page; null on the last page.",
    },
}

CREATE_GAME = {
    "": "Create a game of this kind: its seats, its options, and two settings every game "
    "has (private, turn_seconds).",
    "game": "Which game (the tag).",
    "seats": "Who plays each seat, in seat order (seat 0 first): a human seat (a token is "
    "returned) or a bot of a level; as many as the game allows.",
    "options": "The game's options (see GET /v1/rules/{game}); omitted: the defaults.",
    "private": "True: no spectator view, event log or replay for anyone but the seats and "
    "the creating API key.",
    "turn_seconds": "A turn deadline in seconds (5 to 604800): a human seat that has not "
    "acted this long after its turn began is played by a bot for that turn. Null: no "
    "deadline.",
    "away_seconds": "Seconds (5 to 2592000): when the game awaits a human seat whose player "
    "has been away (presence) this long, its turn is played as a time-out, and so are its "
    "next turns until the player is online again (then the seat is theirs from its next "
    "turn; it is not resigned). Null: never. Needs the server's presence "
    "(STAKEOUT_PRESENCE_SECONDS above 0). Not with a clock (422 invalid-options): its "
    "bank decides when a bot plays.",
    "public": "True: listed in GET /v1/lobby for anyone to find (to claim an open seat "
    "or to watch). Not together with private.",
    "clock": "Time banks: each human seat has a bank of initial_seconds, charged while the "
    "game awaits it, increment_seconds added after each of its acts (capped at the "
    "initial bank); when it runs out, on_time_out says what follows. Null: no clock. Not "
    "together with turn_seconds.",
}
CREATE_TICKET = {
    "": "Ask for a game of this kind for one player: the matcher seats it with players of "
    "its strength (and bots, when asked) in one of the seat counts it accepts.",
    "game": "Which game (the tag).",
    "player": "Who the ticket seats: a player of the API key and a seat name.",
    "options": "The game's options (see GET /v1/rules/{game}); a ticket is matched only "
    "with tickets asking for the same. Omitted: the defaults.",
}
for _name in ("CreateFbiGame", "CreateFedsGame", "CreateBonnieClydeGame"):
    DESCRIPTIONS[_name] = CREATE_GAME
for _name in ("CreateFbiTicket", "CreateFedsTicket", "CreateBonnieClydeTicket"):
    DESCRIPTIONS[_name] = CREATE_TICKET
