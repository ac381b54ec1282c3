// Problems as errors: every error answer is application/problem+json with a stable `type`
// (urn:stakeout:problem:<code>); each becomes a ProblemError, or the subclass named for its
// code, carrying the type and every field the server sent.

export const PROBLEM_PREFIX = "urn:stakeout:problem:";
const STANDARD = new Set(["type", "title", "status", "detail", "instance"]);

/** An error answer. Branch on `code` (or the subclass), never on `detail`. */
export class ProblemError extends Error {
  readonly type: string;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    /** Seconds, from the answer's Retry-After (429, 503), else null. */
    readonly retryAfter: number | null = null,
  ) {
    const type = String(body.type ?? PROBLEM_PREFIX + "unknown");
    const code = type.startsWith(PROBLEM_PREFIX) ? type.slice(PROBLEM_PREFIX.length) : type;
    super(`${status} ${code}: ${String(body.detail ?? body.title ?? "")}`);
    this.name = new.target.name;
    this.type = type;
    this.code = code;
    this.title = String(body.title ?? "");
    this.detail = String(body.detail ?? "");
  }
  /** The problem's own fields beyond RFC 9457's (`preimage`, `current_version`, ...). */
  get fields(): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.body).filter(([k]) => !STANDARD.has(k)));
  }
}

/** The reveal does not hash to the commitment: `preimage` is the string the server hashed
 * from the revealed move and salt; compare it with yours. */
export class RevealMismatch extends ProblemError {
  get preimage(): string {
    return String(this.body.preimage ?? "");
  }
}
/** If-Match named a version the game has moved on from. */
export class VersionMismatch extends ProblemError {
  get currentVersion(): number {
    return Number(this.body.current_version ?? 0);
  }
}
/** 429, still after the client's retries (`retryAfter` seconds). */
export class RateLimited extends ProblemError {}
/** 503: the data store did not answer, or too many writers on one game. */
export class Unavailable extends ProblemError {}
/** 404: no such path, game, invite, player or ticket. */
export class NotFound extends ProblemError {}
/** 401: no credential, or one the server does not know. */
export class Unauthorized extends ProblemError {}
/** 403: a credential that may not do this. */
export class Forbidden extends ProblemError {}
/** 409: the request does not fit the game or resource as it is now. */
export class Conflict extends ProblemError {}
/** 409 not-your-turn. */
export class NotYourTurn extends Conflict {}
/** 409 game-finished. */
export class GameFinished extends Conflict {}
/** 400 or 422: the request breaks a rule (its `code` says which). */
export class InvalidRequest extends ProblemError {}
/** 422 illegal-move. */
export class IllegalMove extends InvalidRequest {}

type Kind = new (status: number, body: Record<string, unknown>, retryAfter: number | null) => ProblemError;
const BY_CODE: Record<string, Kind> = {
  "reveal-mismatch": RevealMismatch,
  "version-mismatch": VersionMismatch,
  "too-many-requests": RateLimited,
  "not-your-turn": NotYourTurn,
  "game-finished": GameFinished,
  "illegal-move": IllegalMove,
};
const BY_STATUS: Record<number, Kind> = {
  400: InvalidRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  422: InvalidRequest,
  429: RateLimited,
  503: Unavailable,
};

/** The error for an error answer: by its code, else by its status. */
export function problemOf(status: number, body: Record<string, unknown>, retryAfter: number | null = null): ProblemError {
  const code = String(body.type ?? "").slice(PROBLEM_PREFIX.length);
  const Kind = BY_CODE[code] ?? BY_STATUS[status] ?? ProblemError;
  return new Kind(status, body, retryAfter);
}

/** The error of a Response that is not 2xx (its body read). */
export async function problemFrom(response: Response): Promise<ProblemError> {
  const text = await response.text().catch(() => "");
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    body = parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    body = { status: response.status, detail: text.slice(0, 500) };
  }
  const header = response.headers.get("Retry-After");
  const retryAfter = header !== null && Number.isFinite(Number(header)) ? Number(header) : null;
  return problemOf(response.status, body, retryAfter);
}
