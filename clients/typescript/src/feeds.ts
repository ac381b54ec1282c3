// Live feeds as async iterators that resume where they broke: each message's position (the
// account feed's `cursor`, a game feed's `version`) goes back as Last-Event-ID on the next
// opening, so nothing is missed or repeated across a lost connection. A `presence` message
// has no position (it is no version of the game): it leaves Last-Event-ID as it was.
import { Unavailable } from "./problems.js";
import { sleep, type CallOptions, type Transport } from "./transport.js";

export interface FollowOptions {
  token?: string | null;
  query?: CallOptions["query"];
  /** Resume after this position (a version or a cursor). */
  lastId?: string | null;
  /** Reopenings after a lost connection in a row before giving up (5). */
  reconnects?: number;
  /** Yield pings too (one each 15 s). */
  pings?: boolean;
  /** Ends the feed (the iterator returns). */
  signal?: AbortSignal;
}

/** Every message of a feed, reopened after a lost connection (or a 503) up to `reconnects`
 * times in a row; it ends when the server ends it, or at `signal`. */
export async function* follow<M extends { kind: string }>(
  transport: Transport,
  path: string,
  { token, query, lastId = null, reconnects = 5, pings = false, signal }: FollowOptions = {},
): AsyncGenerator<M> {
  let failures = 0;
  for (;;) {
    try {
      for await (const line of transport.lines(path, { token, query, lastId, signal })) {
        failures = 0;
        const message = line as unknown as M & { cursor?: unknown; version?: unknown };
        if (message.kind === "ping" && !pings) continue;
        const position = message.cursor ?? (message.kind === "presence" ? undefined : message.version);
        if (position !== undefined && position !== null) lastId = String(position);
        yield message;
      }
      return;
    } catch (error) {
      if (signal?.aborted) return;
      // A lost connection, or a 503 (a process shutting down, the store away): reopen.
      if (!(error instanceof TypeError || error instanceof Unavailable)) throw error;
      if (++failures > reconnects) throw error;
      await sleep(Math.min(5000, 200 * 2 ** (failures - 1)), signal).catch(() => undefined);
      if (signal?.aborted) return;
    }
  }
}
