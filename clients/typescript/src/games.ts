// A game and its seats: what a player's program holds. `Seat.waitForTurn` long-polls
// (`after_version`, `wait`), or with `live` reads the view feed, until the game awaits the
// seat; `Seat.play` posts a move, or in a sealed step commits (keeping the salt), waits for
// every seat to commit and reveals. Every act carries an Idempotency-Key, so the transport
// may retry it after a lost connection: the server answers a retry with the first answer.
import { ServerClock, clockAt, withPresence, type ClockReading } from "./clocks.js";
import { follow } from "./feeds.js";
import type { EventMessage, GameFeedMessage, PresenceMessage, ViewMessage, EventsMessage, PingMessage } from "./messages.js";
import { byVersion } from "./paging.js";
import { commitment, newSalt, type SealedChoice } from "./sealed.js";
import { idempotencyKey, type Transport } from "./transport.js";
import type { components } from "./wire.js";

type S = components["schemas"];
export type GameView = S["GameView"];
export type MoveAccepted = S["MoveAccepted"];
export type EventRecord = S["EventRecord"];
export type Move = GameView["legal"][number];
export type Presence = S["Presence"];

export const OVER = new Set(["finished", "abandoned", "aborted"]);
const LONG_POLL_MAX = 30; // seconds: the contract's longest `wait`
const REPRESENTATION = { Prefer: "return=representation" };

/** The game awaits the seat: `action` is move, commit or reveal, `legal` every move it may
 * make (empty for a reveal), `view` the view that said so. */
export interface Turn {
  action: "move" | "commit" | "reveal";
  step: string;
  legal: Move[];
  view: GameView;
  /** When the seat's time runs out (epoch ms, the server's clock), or null. */
  deadline: number | null;
}

export type FeedKind = "events" | "view";
export interface StreamOptions {
  after?: number;
  signal?: AbortSignal;
  pings?: boolean;
}
export type EventFeedMessage = EventMessage | PresenceMessage | PingMessage;
export type ViewFeedMessage = ViewMessage | EventsMessage | PresenceMessage | PingMessage;

function timedOut(what: string, timeoutMs: number): Error {
  const error = new Error(`${what} within ${timeoutMs} ms`);
  error.name = "TimeoutError";
  return error;
}

function streamOf(transport: Transport, path: string, token: string | null | undefined, feed: "events", o: StreamOptions): AsyncGenerator<EventFeedMessage>;
function streamOf(transport: Transport, path: string, token: string | null | undefined, feed: "view", o: StreamOptions): AsyncGenerator<ViewFeedMessage>;
function streamOf(transport: Transport, path: string, token: string | null | undefined, feed: FeedKind, o: StreamOptions): AsyncGenerator<GameFeedMessage>;
function streamOf(transport: Transport, path: string, token: string | null | undefined, feed: FeedKind, o: StreamOptions) {
  return follow<GameFeedMessage>(transport, path + "/stream", {
    token, query: { feed, after: o.after }, signal: o.signal, pings: o.pings,
  });
}

function eventsOf(transport: Transport, path: string, token: string | null | undefined, after = 0, limit?: number) {
  return byVersion<EventRecord>(
    (start) => transport.json<S["EventPage"]>("GET", path + "/events", { token, query: { after: start, limit } }),
    after,
  );
}

/** One seat of one game, acting with its seat token. */
export class Seat {
  /** The commitment made and not yet revealed: keep it to reveal after a restart. */
  pending: SealedChoice | null;
  /** Await turns on the view feed (one open request for the game) instead of long polls. */
  live: boolean;
  private last: GameView | null = null;
  private serverClock: ServerClock | null = null;
  private feed: AsyncGenerator<ViewFeedMessage> | null = null;
  private feedAbort: AbortController | null = null;

  constructor(
    readonly transport: Transport,
    readonly gameId: string,
    readonly number: number,
    readonly token: string,
    { pending = null, live = false }: { pending?: SealedChoice | null; live?: boolean } = {},
  ) {
    this.pending = pending;
    this.live = live;
  }

  private get path(): string {
    return `/v1/games/${this.gameId}`;
  }

  /** The last view this seat got (an act's answer, a GET, the view feed), or null. */
  get lastView(): GameView | null {
    return this.last;
  }

  private remember(view: GameView): GameView {
    this.last = view;
    this.serverClock = new ServerClock(view.server_time_ms);
    return view;
  }

  /** The seat's view (a long poll with `afterVersion` and `wait`, in seconds). */
  async view({ afterVersion, wait }: { afterVersion?: number; wait?: number } = {}): Promise<GameView> {
    const view = await this.transport.json<GameView>("GET", this.path, {
      token: this.token, query: { after_version: afterVersion, wait },
    });
    return this.remember(view);
  }

  /** The server's time now (epoch ms), from the last view's `server_time_ms` and what
   * elapsed since it arrived; null before any view. */
  serverNowMs(): number | null {
    return this.serverClock?.nowMs() ?? null;
  }

  /** Seat `seat`'s bank now (this seat's by default), counted down from the last view;
   * null without a clock or before any view. */
  clock(seat: number = this.number): ClockReading | null {
    if (!this.last || !this.serverClock) return null;
    return clockAt(this.last, seat, this.serverClock.nowMs());
  }

  /** Seat `seat`'s presence in the last view (updated by the view feed's presence
   * messages with `live`); null for a seat no person plays, or before any view. */
  presence(seat: number = this.number): Presence | null {
    return this.last?.seats.find((s) => s.seat === seat)?.presence ?? null;
  }

  /** The seat's next turn, or null once the game is over; a TimeoutError after
   * `timeoutMs`. A commit already made for the awaited step is no turn: it waits for the
   * reveal. */
  async waitForTurn({ timeoutMs = 30_000 }: { timeoutMs?: number } = {}): Promise<Turn | null> {
    const deadline = Date.now() + timeoutMs;
    if (this.live) return this.waitLive(deadline, timeoutMs);
    let view = this.last ?? (await this.view());
    for (;;) {
      if (OVER.has(view.status)) return null;
      const turn = this.turnIn(view);
      if (turn) return turn;
      const left = deadline - Date.now();
      if (left <= 0) throw timedOut(`seat ${this.number} of ${this.gameId} was not awaited`, timeoutMs);
      const wait = Math.max(1, Math.min(LONG_POLL_MAX, Math.ceil(left / 1000)));
      view = await this.view({ afterVersion: view.version, wait });
    }
  }

  private async waitLive(deadline: number, timeoutMs: number): Promise<Turn | null> {
    for (;;) {
      const view = this.last;
      if (view) {
        if (OVER.has(view.status)) return null;
        const turn = this.turnIn(view);
        if (turn) return turn;
      }
      if (Date.now() > deadline) throw timedOut(`seat ${this.number} of ${this.gameId} was not awaited`, timeoutMs);
      if (!this.feed) {
        this.feedAbort = new AbortController();
        this.feed = streamOf(this.transport, this.path, this.token, "view", { signal: this.feedAbort.signal, pings: true });
      }
      const next = await this.feed.next();
      if (next.done) {
        // The feed ended (the server's drain, or past the end): ask once more, by long poll.
        this.feed = null;
        this.live = false;
        return this.waitForTurn({ timeoutMs: Math.max(1000, deadline - Date.now()) });
      }
      const message = next.value;
      if (message.kind === "presence" && this.last) this.last = withPresence(this.last, message);
      if (message.kind !== "view") continue;
      if (this.last && message.view.version < this.last.version) continue; // older than an act's answer
      this.remember(message.view);
    }
  }

  /** Closes the seat's view feed, if it has one open. */
  async close(): Promise<void> {
    this.feedAbort?.abort();
    await this.feed?.return(undefined).catch(() => undefined);
    this.feed = null;
    this.feedAbort = null;
  }

  /** Plays `move` (an item of `Turn.legal`) in the turn the game awaits: a move, or a commit,
   * then the reveal once every seat has committed. Answers the last act's MoveAccepted. */
  async play(move?: Move, { timeoutMs = 30_000 }: { timeoutMs?: number } = {}): Promise<MoveAccepted> {
    let turn = this.last ? this.turnIn(this.last) : null;
    turn ??= await this.waitForTurn({ timeoutMs });
    if (!turn) throw new Error(`seat ${this.number} of ${this.gameId}: the game is over`);
    if (turn.action === "move") return this.move(move);
    if (turn.action === "reveal") return this.reveal();
    const accepted = await this.commit(move, { step: turn.step });
    const after = await this.waitForTurn({ timeoutMs });
    if (after?.action === "reveal" && this.pending?.step === after.step) return this.reveal();
    return accepted; // the choice was forfeited (a deadline), or the game ended
  }

  /** One move (`ifMatch`: decided only on that version, else 412 VersionMismatch). */
  async move(move: unknown, { key, ifMatch }: { key?: string; ifMatch?: number } = {}): Promise<MoveAccepted> {
    const headers: Record<string, string> = { ...REPRESENTATION };
    if (ifMatch !== undefined) headers["If-Match"] = String(ifMatch);
    return this.act("/moves", move, key, headers);
  }

  /** Commits to `move` for `step` (the awaited one by default) with a new salt, kept in
   * `pending` until the reveal. */
  async commit(move: unknown, { step, key }: { step?: string; key?: string } = {}): Promise<MoveAccepted> {
    if (step === undefined) {
      const turn = this.turnIn(this.last ?? (await this.view()));
      if (turn?.action !== "commit") throw new Error(`seat ${this.number} is not awaited for a commitment`);
      step = turn.step;
    }
    const choice: SealedChoice = { gameId: this.gameId, step, seat: this.number, move, salt: newSalt() };
    const accepted = await this.act("/commitments", { commitment: await commitment(choice) }, key);
    this.pending = choice;
    return accepted;
  }

  /** Reveals the pending choice (or `move` and `salt` given). A mismatch throws
   * RevealMismatch with the server's `preimage`; the pending choice is kept. */
  async reveal(move?: unknown, salt?: string, { key }: { key?: string } = {}): Promise<MoveAccepted> {
    if (!this.pending && (move === undefined || salt === undefined)) {
      throw new Error(`seat ${this.number} has no commitment to reveal`);
    }
    const body = { move: move ?? this.pending?.move, salt: salt ?? this.pending?.salt };
    const accepted = await this.act("/reveals", body, key);
    this.pending = null;
    return accepted;
  }

  /** A bot plays the seat from now on. */
  resign({ key }: { key?: string } = {}): Promise<MoveAccepted> {
    return this.act("/resign", undefined, key);
  }

  /** Leaves a seat claimed by invite, before the start. */
  leave(): Promise<MoveAccepted> {
    return this.transport.json<MoveAccepted>("POST", this.path + "/leave", { token: this.token });
  }

  /** This seat's seat in the rematch (the first call makes the game). */
  async rematch(): Promise<Seat> {
    const made = await this.transport.json<S["RematchCreatedResponse"]>("POST", this.path + "/rematch", { token: this.token });
    if (typeof made.seat !== "number" || typeof made.token !== "string") {
      throw new Error(`the rematch of ${this.gameId} gave no seat to this token`);
    }
    return new Seat(this.transport, made.game_id, made.seat, made.token);
  }

  /** Every event record the seat may see after version `after`, page by page. */
  events({ after = 0, limit }: { after?: number; limit?: number } = {}): AsyncGenerator<EventRecord> {
    return eventsOf(this.transport, this.path, this.token, after, limit);
  }

  /** The live feed (`events`, the default, or `view`), resumed after a lost connection from
   * the last version it gave; presence messages come as `{ kind: "presence" }`. */
  stream(feed: "view", options?: StreamOptions): AsyncGenerator<ViewFeedMessage>;
  stream(feed?: "events", options?: StreamOptions): AsyncGenerator<EventFeedMessage>;
  stream(feed: FeedKind = "events", options: StreamOptions = {}): AsyncGenerator<GameFeedMessage> {
    return streamOf(this.transport, this.path, this.token, feed, options);
  }

  private turnIn(view: GameView): Turn | null {
    const mine = view.awaiting.find((a) => a.seat === this.number);
    if (!mine) return null;
    if (this.pending && this.pending.step !== mine.step) this.pending = null; // forfeited: its step is gone
    if (mine.action === "commit" && this.pending?.step === mine.step) return null;
    return { action: mine.action, step: mine.step, legal: view.legal, view, deadline: mine.deadline ?? null };
  }

  private async act(path: string, body: unknown, key?: string, headers: Record<string, string> = REPRESENTATION): Promise<MoveAccepted> {
    const accepted = await this.transport.json<MoveAccepted>("POST", this.path + path, {
      token: this.token, body, key: key ?? idempotencyKey(), headers,
    });
    const view = accepted.view as GameView | null | undefined;
    if (view) this.remember(view);
    else this.last = null;
    return accepted;
  }
}

/** A game as its creator (the API key) sees it, and the seats it was given. */
export class Game {
  constructor(
    readonly transport: Transport,
    readonly apiKey: string | undefined,
    readonly id: string,
    /** The creation's answer: the seats' tokens and invites (null for `api.game(id)`). */
    readonly created: S["GameCreatedResponse"] | null = null,
  ) {}

  private get path(): string {
    return `/v1/games/${this.id}`;
  }

  /** Seat `number`, acting with `token` or the one its creation gave; `live` awaits its
   * turns on the view feed instead of by long polls. */
  seat(number: number, { token, live = false }: { token?: string; live?: boolean } = {}): Seat {
    const found = token ?? this.created?.seats.find((s) => s.seat === number)?.token ?? undefined;
    if (!found) throw new Error(`seat ${number} of game ${this.id} has no token here (not human?)`);
    return new Seat(this.transport, this.id, number, found, { live });
  }

  /** The invite code of open seat `number`. */
  invite(number: number): string {
    const code = this.created?.seats.find((s) => s.seat === number)?.invite?.code;
    if (!code) throw new Error(`seat ${number} of game ${this.id} has no invite here`);
    return code;
  }

  /** The spectator's view (a long poll with `afterVersion` and `wait`). */
  view({ afterVersion, wait }: { afterVersion?: number; wait?: number } = {}): Promise<GameView> {
    return this.transport.json<GameView>("GET", this.path, { token: this.apiKey, query: { after_version: afterVersion, wait } });
  }

  /** The spectator's view once the game is over. */
  async waitUntilOver({ timeoutMs = 120_000 }: { timeoutMs?: number } = {}): Promise<GameView> {
    const deadline = Date.now() + timeoutMs;
    let view = await this.view();
    while (!OVER.has(view.status)) {
      const left = deadline - Date.now();
      if (left <= 0) throw timedOut(`game ${this.id} did not end`, timeoutMs);
      view = await this.view({ afterVersion: view.version, wait: Math.max(1, Math.min(LONG_POLL_MAX, Math.ceil(left / 1000))) });
    }
    return view;
  }

  abort({ key }: { key?: string } = {}): Promise<MoveAccepted> {
    return this.transport.json<MoveAccepted>("POST", this.path + "/abort", { token: this.apiKey, key: key ?? idempotencyKey() });
  }

  /** Bots take every open seat (before the start). */
  fill(level: "random" | "greedy" | "expert" = "random"): Promise<MoveAccepted> {
    return this.transport.json<MoveAccepted>("POST", this.path + "/fill", { token: this.apiKey, body: { level } });
  }

  events({ after = 0, limit }: { after?: number; limit?: number } = {}): AsyncGenerator<EventRecord> {
    return eventsOf(this.transport, this.path, this.apiKey, after, limit);
  }

  stream(feed: "view", options?: StreamOptions): AsyncGenerator<ViewFeedMessage>;
  stream(feed?: "events", options?: StreamOptions): AsyncGenerator<EventFeedMessage>;
  stream(feed: FeedKind = "events", options: StreamOptions = {}): AsyncGenerator<GameFeedMessage> {
    return streamOf(this.transport, this.path, this.apiKey, feed, options);
  }

  /** Every event unredacted, the acts and the seed (a game that is over). */
  replay(): Promise<S["ReplayDocument"]> {
    return this.transport.json("GET", this.path + "/replay", { token: this.apiKey });
  }

  replayView(version: number, seat?: number): Promise<GameView> {
    return this.transport.json("GET", `${this.path}/replay/${version}`, { token: this.apiKey, query: { seat } });
  }
}
