// One HTTP call with the contract's manners: the bearer, JSON bodies, an Idempotency-Key on
// every act (the same key on each of its retries), retries on 429 and 503 that wait as
// Retry-After says, retries of safe calls and keyed acts after a lost connection, problems
// as errors. fetch only: the same code runs in Node 20 and in a browser.
import { problemFrom } from "./problems.js";

/** What a retry hook is told: the attempt that failed and how long the client waits. */
export interface Retry {
  method: string;
  path: string;
  attempt: number;
  waitMs: number;
  /** null: the connection failed. */
  status: number | null;
  idempotencyKey: string | null;
}

export interface TransportOptions {
  baseUrl: string;
  maxRetries?: number;
  /** The longest wait a Retry-After may ask for (ms, 60 s by default). */
  maxWaitMs?: number;
  onRetry?: (retry: Retry) => void;
  fetch?: typeof fetch;
}

export interface CallOptions {
  token?: string | null;
  query?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  /** The act's Idempotency-Key: with one, a lost connection is retried too. */
  key?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const RETRIED_STATUSES = new Set([429, 503]);
// Safe to send twice: reads, and a cancellation or deletion (the second finds it gone).
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE"]);

export function idempotencyKey(): string {
  return `sdk-${crypto.randomUUID().replaceAll("-", "")}`;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

function backoffMs(attempt: number): number {
  return Math.min(5000, 200 * 2 ** (attempt - 1));
}

/** A lost connection (fetch rejects with a TypeError), as opposed to an abort. */
function isConnectionFailure(error: unknown): boolean {
  return error instanceof TypeError;
}

export class Transport {
  /** Every request sent, retries included (bench/client_requests.py). */
  requests = 0;
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly maxWaitMs: number;
  readonly onRetry?: (retry: Retry) => void;
  private readonly fetchImpl: typeof fetch;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/$/, "");
    this.maxRetries = options.maxRetries ?? 5;
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.onRetry = options.onRetry;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  url(path: string, query: CallOptions["query"] = {}): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.set(k, String(v));
    const search = params.toString();
    return this.baseUrl + path + (search ? `?${search}` : "");
  }

  /** The fetch the typed openapi-fetch client (`Stakeout.http`) goes through: the same
   * retries, its Idempotency-Key header read from the request. */
  readonly fetch = async (input: Request): Promise<Response> => {
    const key = input.headers.get("Idempotency-Key");
    const path = new URL(input.url).pathname;
    return this.send(input.method, path, key, () => this.fetchImpl(input.clone()), input.signal);
  };

  /** The 2xx (or 304) answer; a problem throws its ProblemError. */
  async call(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (options.key) headers["Idempotency-Key"] = options.key;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] = "application/json";
    }
    const url = this.url(path, options.query);
    const response = await this.send(
      method, path, options.key ?? null,
      () => this.fetchImpl(url, { method, headers, body, signal: options.signal }),
      options.signal,
    );
    if (response.ok || response.status === 304) return response;
    throw await problemFrom(response);
  }

  async json<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const response = await this.call(method, path, options);
    return (await response.json()) as T;
  }

  private async send(
    method: string, path: string, key: string | null, attempt: () => Promise<Response>, signal?: AbortSignal | null,
  ): Promise<Response> {
    const retryableFailure = key !== null || SAFE_METHODS.has(method);
    for (let n = 1; ; n++) {
      this.requests++;
      let response: Response;
      try {
        response = await attempt();
      } catch (error) {
        if (!isConnectionFailure(error) || !retryableFailure || n > this.maxRetries || signal?.aborted) throw error;
        await this.wait({ method, path, attempt: n, waitMs: backoffMs(n), status: null, idempotencyKey: key }, signal);
        continue;
      }
      if (!RETRIED_STATUSES.has(response.status) || n > this.maxRetries) return response;
      const header = Number(response.headers.get("Retry-After") ?? "1");
      const waitMs = Math.min(this.maxWaitMs, (Number.isFinite(header) ? header : 1) * 1000);
      await response.body?.cancel().catch(() => undefined);
      await this.wait({ method, path, attempt: n, waitMs, status: response.status, idempotencyKey: key }, signal);
    }
  }

  private async wait(retry: Retry, signal?: AbortSignal | null): Promise<void> {
    this.onRetry?.(retry);
    await sleep(retry.waitMs, signal ?? undefined);
  }

  /** One opening of a live feed as JSON lines (Accept: application/x-ndjson). */
  async *lines(
    path: string,
    { token, query, lastId, signal }: { token?: string | null; query?: CallOptions["query"]; lastId?: string | null; signal?: AbortSignal },
  ): AsyncGenerator<Record<string, unknown>> {
    const headers: Record<string, string> = { Accept: "application/x-ndjson" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (lastId != null) headers["Last-Event-ID"] = lastId;
    this.requests++;
    const response = await this.fetchImpl(this.url(path, query), { headers, signal });
    if (!response.ok) throw await problemFrom(response);
    if (!response.body) return;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 1);
          if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
}
