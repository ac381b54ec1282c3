// Clocks and presence (docs/api-guide.md, "Clocks and presence"). A view carries
// `server_time_ms`, when the server made it, and each seat's `clock` as of then: a running
// bank is counted down from that moment by the time elapsed since the view arrived (a
// monotonic clock), never by the client's own wall clock, which may be off by minutes.
import type { SeatPresence, PresenceMessage } from "./messages.js";
import type { components } from "./wire.js";

type GameView = components["schemas"]["GameView"];

function monotonicMs(): number {
  return performance.now();
}

/** The server's clock, as a view showed it when it arrived. */
export class ServerClock {
  constructor(
    readonly serverTimeMs: number,
    /** performance.now() when the view arrived. */
    readonly receivedAt: number = monotonicMs(),
  ) {}
  /** The server's time now (epoch ms): its time in the view plus what elapsed since. */
  nowMs(at: number = monotonicMs()): number {
    return this.serverTimeMs + Math.max(0, at - this.receivedAt);
  }
  /** server time minus the client's wall clock (ms), as of the view's arrival. */
  get offsetMs(): number {
    return this.serverTimeMs - (Date.now() - (monotonicMs() - this.receivedAt));
  }
}

/** A seat's bank at a given moment of the server's clock. */
export interface ClockReading {
  seat: number;
  /** What is left (ms), counted down while running; 0 once the flag fell. */
  remainingMs: number;
  running: boolean;
  /** When its flag falls by the server's clock (epoch ms) while running, else null. */
  flagAtMs: number | null;
}

/** Seat `seat`'s bank at `serverNowMs` (the server's clock: `ServerClock.nowMs()`); null in a
 * game without a clock (or a seat with none: a bot's). */
export function clockAt(view: GameView, seat: number, serverNowMs: number = view.server_time_ms): ClockReading | null {
  const clock = view.seats.find((s) => s.seat === seat)?.clock;
  if (!clock) return null;
  const elapsed = clock.running ? Math.max(0, serverNowMs - view.server_time_ms) : 0;
  return {
    seat,
    remainingMs: Math.max(0, clock.remaining_ms - elapsed),
    running: clock.running,
    flagAtMs: clock.running ? view.server_time_ms + clock.remaining_ms : null,
  };
}

/** Every seat's presence and substitution, as the view shows them. */
export function presenceIn(view: GameView): SeatPresence[] {
  return view.seats.map((s) => ({ seat: s.seat, presence: s.presence ?? null, substituted: s.substituted ?? null }));
}

/** The view with a `presence` message's news in its seats (a presence message changes no
 * version: the view is otherwise as it was). */
export function withPresence(view: GameView, message: PresenceMessage): GameView {
  const news = new Map(message.seats.map((s) => [s.seat, s]));
  return {
    ...view,
    seats: view.seats.map((s) => {
      const changed = news.get(s.seat);
      return changed ? { ...s, presence: changed.presence, substituted: changed.substituted } : s;
    }),
  };
}
