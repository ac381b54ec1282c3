// `Stakeout`: the API key's side of the API (games, players, leaderboards, matchmaking,
// webhooks, the account feed), and where every Game, Seat and Ticket comes from.
import createClient, { type Middleware } from "openapi-fetch";
import { follow } from "./feeds.js";
import { Game, Seat } from "./games.js";
import type { AccountFeedMessage } from "./messages.js";
import { byCursor, byOffset } from "./paging.js";
import { problemFrom } from "./problems.js";
import type { SealedChoice } from "./sealed.js";
import { Ticket } from "./tickets.js";
import { Transport, type CallOptions, type Retry } from "./transport.js";
import type { components, paths } from "./wire.js";

type S = components["schemas"];
export type SeatSpec =
  | ({ type: "human" } & Partial<S["HumanSeat"]>)
  | ({ type: "bot" } & Partial<S["BotSeat"]>)
  | ({ type: "open" } & Partial<S["OpenSeat"]>);

export interface Options {
  baseUrl: string;
  /** The backend's key (`sk_…`); a program holding only seat tokens leaves it out. */
  apiKey?: string;
  maxRetries?: number;
  maxWaitMs?: number;
  onRetry?: (retry: Retry) => void;
  fetch?: typeof fetch;
}

type Query = CallOptions["query"];

/** A seat played by a person (its token comes back at creation). */
export function human(name?: string, externalId?: string): SeatSpec {
  return { type: "human", ...(name ? { name } : {}), ...(externalId ? { external_id: externalId } : {}) };
}
/** A seat the server's bot plays: random, greedy or expert. */
export function bot(level: "random" | "greedy" | "expert" = "random", name?: string): SeatSpec {
  return { type: "bot", level, ...(name ? { name } : {}) };
}
/** A seat left for someone to claim with its invite. */
export function openSeat(name?: string, externalId?: string): SeatSpec {
  return { type: "open", ...(name ? { name } : {}), ...(externalId ? { external_id: externalId } : {}) };
}

const problems: Middleware = {
  async onResponse({ response }) {
    if (response.ok || response.status === 304) return undefined;
    throw await problemFrom(response.clone());
  },
};

export class Stakeout {
  readonly transport: Transport;
  /** The typed openapi-fetch client for every operation of the contract, with the same
   * retries and problems: `api.http.GET("/v1/stats", { headers: api.auth() })`. */
  readonly http: ReturnType<typeof createClient<paths>>;
  readonly apiKey: string | undefined;

  constructor(readonly options: Options) {
    this.apiKey = options.apiKey;
    this.transport = new Transport(options);
    this.http = createClient<paths>({ baseUrl: this.transport.baseUrl, fetch: this.transport.fetch });
    this.http.use(problems);
  }

  /** Requests sent so far, retries included. */
  get requests(): number {
    return this.transport.requests;
  }

  /** The Authorization header for `token` (the API key by default), for `http`. */
  auth(token: string | undefined = this.apiKey): Record<string, string> {
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  private get<T>(path: string, query?: Query, token: string | null | undefined = this.apiKey): Promise<T> {
    return this.transport.json<T>("GET", path, { token, query });
  }

  // Games ------------------------------------------------------------------------------

  /** A new game: `seats` of human(), bot(), openSeat() (or the wire's seat objects);
   * `extra` takes `private`, `public`, `turn_seconds`, `clock`, `away_seconds`, ... */
  async createGame(
    game: string,
    { seats, options, ...extra }: { seats: SeatSpec[]; options?: Record<string, unknown>; [extra: string]: unknown },
  ): Promise<Game> {
    const body = { game, seats, ...(options ? { options } : {}), ...extra };
    // Not keyed: a creation lost on the way is not sent twice.
    const created = await this.transport.json<S["GameCreatedResponse"]>("POST", "/v1/games", { token: this.apiKey, body });
    return new Game(this.transport, this.apiKey, created.id, created);
  }

  game(gameId: string): Game {
    return new Game(this.transport, this.apiKey, gameId);
  }

  /** A seat from a token kept elsewhere (a claim, a rematch, a matched ticket). */
  seat(gameId: string, number: number, token: string, init: { pending?: SealedChoice | null; live?: boolean } = {}): Seat {
    return new Seat(this.transport, gameId, number, token, init);
  }

  /** The key's games, newest first, every page. */
  games(q: { status?: string; game?: string; externalId?: string; limit?: number } = {}): AsyncGenerator<S["GameSummary"]> {
    const query = { status: q.status, game: q.game, external_id: q.externalId, limit: q.limit };
    return byCursor((cursor) => this.get<S["GamePage"]>("/v1/games", { ...query, cursor }), (p) => p.games);
  }

  /** Public games that have not ended, every page. */
  lobby(q: { game?: string; state?: string; limit?: number } = {}): AsyncGenerator<S["GameSummary"]> {
    return byCursor((cursor) => this.get<S["LobbyPage"]>("/v1/lobby", { ...q, cursor }), (p) => p.games);
  }

  stats(): Promise<S["Stats"]> {
    return this.get("/v1/stats");
  }

  /** The games (GameList). */
  rules(): Promise<S["GameList"]>;
  /** One game's rules, options and house rules. */
  rules(game: string): Promise<S["RulesDocument"]>;
  rules(game?: string): Promise<S["GameList"] | S["RulesDocument"]> {
    return this.get(game === undefined ? "/v1/rules" : `/v1/rules/${game}`);
  }

  // Invites ----------------------------------------------------------------------------

  /** What an invite leads to (no credential). */
  invite(code: string): Promise<S["InviteInfo"]> {
    return this.get(`/v1/invites/${code}`, undefined, null);
  }

  /** Claims the invite's seat: with the code alone, or (to bind an `externalId`) with the
   * API key that created the game. */
  async claimInvite(code: string, { name, externalId }: { name?: string; externalId?: string } = {}): Promise<Seat> {
    const body = { ...(name ? { name } : {}), ...(externalId ? { external_id: externalId } : {}) };
    const token = externalId ? this.apiKey : null;
    const claimed = await this.transport.json<S["ClaimedSeat"]>("POST", `/v1/invites/${code}`, { token, body });
    return new Seat(this.transport, claimed.game_id, claimed.seat, claimed.token);
  }

  // Players and leaderboards -----------------------------------------------------------

  player(externalId: string): Promise<S["PlayerProfile"]> {
    return this.get(`/v1/players/${encodeURIComponent(externalId)}`);
  }

  playerGames(externalId: string, q: { status?: string; game?: string; limit?: number } = {}): AsyncGenerator<S["GameSummary"]> {
    const path = `/v1/players/${encodeURIComponent(externalId)}/games`;
    return byCursor((cursor) => this.get<S["GamePage"]>(path, { ...q, cursor }), (p) => p.games);
  }

  /** The game's leaderboard entries, best first (from `around`'s page when given). */
  leaderboard(game: string, q: { around?: string; limit?: number } = {}): AsyncGenerator<S["LeaderboardEntry"]> {
    return byCursor(
      (cursor) => this.get<S["LeaderboardPage"]>(`/v1/leaderboards/${game}`, cursor ? { limit: q.limit, cursor } : q),
      (p) => p.entries,
    );
  }

  // Matchmaking ------------------------------------------------------------------------

  /** A quick-match ticket for a game of any of `seats` seats (`extra`: options, clock, ...). */
  async createTicket(
    game: string,
    seats: number[],
    { player, ...extra }: { player?: S["TicketPlayer"]; [extra: string]: unknown } = {},
  ): Promise<Ticket> {
    const body = { game, seats, ...(player ? { player } : {}), ...extra };
    const created = await this.transport.json<S["TicketCreated"]>("POST", "/v1/matchmaking/tickets", { token: this.apiKey, body });
    return new Ticket(this.transport, created.id, created.secret);
  }

  ticket(ticketId: string, secret: string): Ticket {
    return new Ticket(this.transport, ticketId, secret);
  }

  // Webhooks ---------------------------------------------------------------------------

  /** A receiver; the answer's `secret` (shown once) checks its signatures (verifySignature). */
  registerWebhook(url: string, events: string[], gameId: string | null = null): Promise<S["WebhookCreated"]> {
    return this.transport.json("POST", "/v1/webhooks", { token: this.apiKey, body: { url, events, game_id: gameId } });
  }

  async webhooks(): Promise<S["WebhookList"]["webhooks"]> {
    return (await this.get<S["WebhookList"]>("/v1/webhooks")).webhooks;
  }

  async deleteWebhook(webhookId: string): Promise<void> {
    await this.transport.call("DELETE", `/v1/webhooks/${webhookId}`, { token: this.apiKey });
  }

  /** Every delivery attempt of the webhook, every page. */
  deliveries(webhookId: string, { limit }: { limit?: number } = {}): AsyncGenerator<S["Attempt"]> {
    return byOffset(
      (offset) => this.get<S["AttemptPage"]>(`/v1/webhooks/${webhookId}/deliveries`, { offset, limit }),
      (p) => p.attempts,
    );
  }

  // The account feed -------------------------------------------------------------------

  /** Every notification of the key's games from `after` (a `cursor`; without, from now),
   * resumed after a lost connection; it ends only at `signal`. */
  feed({ after, signal }: { after?: string; signal?: AbortSignal } = {}): AsyncGenerator<AccountFeedMessage> {
    return follow<AccountFeedMessage>(this.transport, "/v1/feed", { token: this.apiKey, lastId: after ?? null, signal });
  }
}
