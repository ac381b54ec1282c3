// A matchmaking ticket, read with its secret: it waits until matched, then gives the seat.
import { Seat } from "./games.js";
import { sleep, type Transport } from "./transport.js";
import type { components } from "./wire.js";

type TicketView = components["schemas"]["TicketView"];

export class Ticket {
  constructor(
    readonly transport: Transport,
    readonly id: string,
    /** `mmt_…`, shown once at creation: what the player's app holds. */
    readonly secret: string,
  ) {}

  read(): Promise<TicketView> {
    return this.transport.json("GET", `/v1/matchmaking/tickets/${this.id}`, { token: this.secret });
  }

  cancel(): Promise<TicketView> {
    return this.transport.json("DELETE", `/v1/matchmaking/tickets/${this.id}`, { token: this.secret });
  }

  /** The seat once matched (the matcher runs on a worker: read every `pollMs`). */
  async waitForMatch({ timeoutMs = 60_000, pollMs = 500 }: { timeoutMs?: number; pollMs?: number } = {}): Promise<Seat> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ticket = await this.read();
      const match = ticket.match;
      if (match?.token) return new Seat(this.transport, match.game_id, match.seat, match.token);
      if (!["waiting", "matching", "matched"].includes(ticket.status)) {
        throw new Error(`ticket ${this.id} is ${ticket.status}`);
      }
      if (Date.now() >= deadline) throw Object.assign(new Error(`ticket ${this.id} was not matched within ${timeoutMs} ms`), { name: "TimeoutError" });
      await sleep(pollMs);
    }
  }
}
