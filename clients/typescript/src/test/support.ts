// What the Node tests share. They run against a real server: STAKEOUT_URL and
// STAKEOUT_API_KEY (tests/clients/test_typescript_client.py starts a `stakeout run` and an
// API process with a low rate limit, STAKEOUT_LIMITED_URL, and runs `npm test` with them).
import net from "node:net";
import { Stakeout, type Options, type Seat } from "../index.js";

export const baseUrl = process.env.STAKEOUT_URL ?? "http://127.0.0.1:8000";
export const apiKey = process.env.STAKEOUT_API_KEY;
export const limitedUrl = process.env.STAKEOUT_LIMITED_URL;

export function client(options: Partial<Options> = {}): Stakeout {
  return new Stakeout({ baseUrl, apiKey, ...options });
}

export const TABLES: Record<string, { seats: number; options: Record<string, unknown> }> = {
  fbi: { seats: 3, options: {} },
  feds: { seats: 3, options: {} },
  bonnie_clyde: { seats: 2, options: { target: 10 } },
};

/** A seeded generator (mulberry32), so a failing game can be played again. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The ten-line client: wait for the turn, play a legal move, until the game is over.
 * Counts the turns by action. */
export async function playToTheEnd(seat: Seat, random: () => number): Promise<Record<string, number>> {
  const actions: Record<string, number> = { move: 0, commit: 0, reveal: 0 };
  for (let turn = await seat.waitForTurn({ timeoutMs: 60_000 }); turn; turn = await seat.waitForTurn({ timeoutMs: 60_000 })) {
    actions[turn.action]++;
    await seat.play(turn.legal.length ? turn.legal[Math.floor(random() * turn.legal.length)] : undefined, { timeoutMs: 60_000 });
  }
  return actions;
}

/** Reads an async iterator with time limits: a read that timed out stays pending and
 * its item goes to the next `first` (nothing is lost between two reads). */
export class Reader<T> {
  private pending: Promise<IteratorResult<T>> | null = null;
  constructor(readonly items: AsyncIterator<T>) {}

  /** The first item `wanted` accepts, within `ms`, or a failure saying so. */
  async first(wanted: (item: T) => boolean, ms: number, what: string): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms`);
      this.pending ??= this.items.next();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left)));
      const next = await Promise.race([this.pending, timeout]);
      clearTimeout(timer);
      if (next === "timeout") throw new Error(`no ${what} within ${ms} ms`);
      this.pending = null;
      if (next.done) throw new Error(`the feed ended before ${what}`);
      if (wanted(next.value)) return next.value;
    }
  }

  async close(): Promise<void> {
    await this.items.return?.(undefined);
  }
}

/** The first item of `items` that `wanted` accepts, within `ms`. */
export function firstOf<T>(items: AsyncIterator<T>, wanted: (item: T) => boolean, ms: number, what: string): Promise<T> {
  return new Reader(items).first(wanted, ms, what);
}

/** Waits until `check` answers something truthy (polled every 200 ms), within `ms`. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A TCP proxy to the server. Armed with a needle, it forwards the next request holding it
 * and then closes the client's connection without the answer (lost on the way back, after
 * the server acted); `cut()` closes every open connection (a feed's too). It records every
 * request it forwards, and each connection's first chunk. */
export class DroppingProxy {
  readonly requests: string[] = [];
  armed: string | null = null;
  private readonly open = new Set<net.Socket>();
  private server: net.Server;
  url = "";

  constructor(private readonly upstream: string) {
    this.server = net.createServer((client) => this.connection(client));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
    return this;
  }

  private connection(client: net.Socket): void {
    const { hostname, port } = new URL(this.upstream);
    const server = net.connect(Number(port), hostname);
    this.open.add(client).add(server);
    let dropped = false;
    const close = () => {
      for (const s of [client, server]) {
        s.destroy();
        this.open.delete(s);
      }
    };
    client.on("data", (chunk) => {
      const text = chunk.toString("latin1");
      this.requests.push(text);
      if (this.armed !== null && text.includes(this.armed)) {
        this.armed = null;
        dropped = true;
      }
      server.write(chunk);
    });
    server.on("data", (chunk) => (dropped ? close() : client.write(chunk)));
    client.on("close", close).on("error", close);
    server.on("close", close).on("error", close);
  }

  /** Every open connection closed at once, as a killed proxy would. */
  cut(): void {
    for (const s of this.open) s.destroy();
    this.open.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

export function header(request: string, name: string): string | undefined {
  const line = request.split("\r\n").find((l) => l.toLowerCase().startsWith(name.toLowerCase() + ":"));
  return line?.slice(line.indexOf(":") + 1).trim();
}
