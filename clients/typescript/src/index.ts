// stakeout's TypeScript client: fetch only (Node 20 and browsers), the wire types generated
// from openapi/v1.json by openapi-typescript (src/wire.ts, `make clients`), requests typed by
// openapi-fetch. The layer here holds what no generator knows: sealed steps, waiting for a
// turn, idempotency keys, retries on 429 and 503 after Retry-After, typed problems.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./wire.js";

export type { components, paths };
export type Schemas = components["schemas"];
export type GameView = Schemas["GameView"];
export type MoveAccepted = Schemas["MoveAccepted"];
export type Move = GameView["legal"][number];
export type SeatSpec = Record<string, unknown> & { type: "human" | "bot" | "open" };

const PROBLEM = "urn:stakeout:problem:";
const OVER = new Set(["finished", "abandoned", "aborted"]);

/** An error answer: branch on `code` (or `type`), never on `detail`. */
export class ProblemError extends Error {
  readonly type: string;
  readonly code: string;
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    const type = String(body.type ?? PROBLEM + "unknown");
    super(`${status} ${type.slice(PROBLEM.length)}: ${String(body.detail ?? body.title ?? "")}`);
    this.type = type;
    this.code = type.slice(PROBLEM.length);
  }
  /** With reveal-mismatch: the exact string the server hashed. */
  get preimage(): string | undefined {
    return this.body.preimage as string | undefined;
  }
}

export interface Turn {
  action: "move" | "commit" | "reveal";
  step: string;
  legal: Move[];
  view: GameView;
  deadline: number | null;
}

export interface SealedChoice {
  gameId: string;
  step: string;
  seat: number;
  move: unknown;
  salt: string;
}

export interface Options {
  baseUrl: string;
  apiKey?: string;
  maxRetries?: number;
  fetch?: typeof fetch;
}

/** Keys sorted at every level, no spaces: the move's JSON as the server hashes it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

export function preimage(c: SealedChoice): string {
  return `sealed-v1|${c.gameId}|${c.step}|${c.seat}|${canonicalJson(c.move)}|${c.salt}`;
}

/** hex(SHA-256(UTF-8 preimage)), with Web Crypto (Node 20 and browsers). */
export async function commitment(c: SealedChoice): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(preimage(c)));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function newSalt(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Retries on 429 and 503 after Retry-After, at most `maxRetries` times. */
function retrying(fetchImpl: typeof fetch, maxRetries: number, counter: { requests: number }) {
  return async (input: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      counter.requests++;
      const response = await fetchImpl(input.clone());
      if ((response.status !== 429 && response.status !== 503) || attempt >= maxRetries) {
        return response;
      }
      const wait = Number(response.headers.get("Retry-After") ?? "1");
      await sleep(Math.min(60, Number.isFinite(wait) ? wait : 1) * 1000);
    }
  };
}

const problems: Middleware = {
  async onResponse({ response }) {
    if (response.ok || response.status === 304) return undefined;
    const body = (await response.clone().json().catch(() => ({}))) as Record<string, unknown>;
    throw new ProblemError(response.status, body);
  },
};

export class Stakeout {
  readonly http: ReturnType<typeof createClient<paths>>;
  readonly counter = { requests: 0 };
  constructor(readonly options: Options) {
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.http = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/$/, ""),
      fetch: retrying(fetchImpl, options.maxRetries ?? 5, this.counter),
    });
    this.http.use(problems);
  }

  /** Requests sent so far, retries included. */
  get requests(): number {
    return this.counter.requests;
  }

  auth(token = this.options.apiKey): Record<string, string> {
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  async createGame(
    game: string,
    init: { seats: SeatSpec[]; options?: Record<string, unknown>; [extra: string]: unknown },
  ): Promise<Game> {
    const { data } = await this.http.POST("/v1/games", {
      body: { game, ...init } as never,
      headers: this.auth(),
    });
    return new Game(this, data!);
  }

  seat(gameId: string, number: number, token: string): Seat {
    return new Seat(this, gameId, number, token);
  }
}

export class Game {
  readonly id: string;
  constructor(
    readonly api: Stakeout,
    readonly created: Schemas["GameCreatedResponse"],
  ) {
    this.id = created.id;
  }

  seat(number: number, token?: string): Seat {
    const grant = this.created.seats.find((s) => s.seat === number);
    const found = token ?? grant?.token ?? undefined;
    if (!found) throw new Error(`seat ${number} of game ${this.id} has no token here`);
    return new Seat(this.api, this.id, number, found);
  }
}

export class Seat {
  pending: SealedChoice | null = null;
  private last: GameView | null = null;
  constructor(
    readonly api: Stakeout,
    readonly gameId: string,
    readonly number: number,
    readonly token: string,
  ) {}

  /** The seat's view (a long poll with `afterVersion` and `wait`). */
  async view(query: { afterVersion?: number; wait?: number } = {}): Promise<GameView> {
    const { data } = await this.api.http.GET("/v1/games/{game_id}", {
      params: {
        path: { game_id: this.gameId },
        query: { after_version: query.afterVersion, wait: query.wait },
      },
      headers: this.api.auth(this.token),
    });
    this.last = data as GameView;
    return this.last;
  }

  /** The seat's next turn, or null once the game is over. */
  async waitForTurn({ timeoutMs = 30_000 } = {}): Promise<Turn | null> {
    const deadline = Date.now() + timeoutMs;
    let view = this.last ?? (await this.view());
    for (;;) {
      if (OVER.has(view.status)) return null;
      const turn = this.turnIn(view);
      if (turn) return turn;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`seat ${this.number} was not awaited in ${timeoutMs} ms`);
      const wait = Math.max(1, Math.min(30, Math.ceil(left / 1000)));
      view = await this.view({ afterVersion: view.version, wait });
    }
  }

  /** A move, or in a sealed step a commit, a wait for every commitment and the reveal. */
  async play(move?: Move, { timeoutMs = 30_000 } = {}): Promise<MoveAccepted> {
    let turn = this.last ? this.turnIn(this.last) : null;
    turn ??= await this.waitForTurn({ timeoutMs });
    if (!turn) throw new Error("the game is over");
    if (turn.action === "move") return this.act("moves", move);
    if (turn.action === "reveal") return this.reveal();
    const choice = { gameId: this.gameId, step: turn.step, seat: this.number, move, salt: newSalt() };
    const accepted = await this.act("commitments", { commitment: await commitment(choice) });
    this.pending = choice;
    const after = await this.waitForTurn({ timeoutMs });
    if (after?.action === "reveal" && this.pending?.step === after.step) return this.reveal();
    return accepted;
  }

  /** Reveals the pending choice (or `move` and `salt` given). */
  async reveal(move?: unknown, salt?: string): Promise<MoveAccepted> {
    const body = { move: move ?? this.pending?.move, salt: salt ?? this.pending?.salt };
    const accepted = await this.act("reveals", body);
    this.pending = null;
    return accepted;
  }

  private turnIn(view: GameView): Turn | null {
    const mine = view.awaiting.find((a) => a.seat === this.number);
    if (!mine) return null;
    if (this.pending && this.pending.step !== mine.step) this.pending = null;
    if (mine.action === "commit" && this.pending?.step === mine.step) return null;
    return { action: mine.action, step: mine.step, legal: view.legal, view, deadline: mine.deadline ?? null };
  }

  private async act(path: "moves" | "commitments" | "reveals", body: unknown): Promise<MoveAccepted> {
    const headers = {
      ...this.api.auth(this.token),
      "Idempotency-Key": `sdk-${crypto.randomUUID()}`,
      Prefer: "return=representation",
    };
    const params = { path: { game_id: this.gameId } };
    const route = `/v1/games/{game_id}/${path}` as "/v1/games/{game_id}/moves";
    const { data } = await this.api.http.POST(route, { params, body: body as never, headers });
    const accepted = data as MoveAccepted;
    this.last = (accepted.view as GameView | null | undefined) ?? null;
    return accepted;
  }
}
