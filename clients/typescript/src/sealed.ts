// The sealed-commitment scheme, as the server checks it (docs/api-guide.md, "Sealed steps"):
// hex(SHA-256(UTF-8 "sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}")), `move` the move's
// JSON with keys sorted and no spaces, `salt` 16 random bytes as hex. Web Crypto only.

/** A commitment made and not yet revealed: keep it until the reveal (`Seat.pending`). */
export interface SealedChoice {
  gameId: string;
  step: string;
  seat: number;
  move: unknown;
  salt: string;
}

/** Keys sorted at every level, no spaces: the move's JSON as the server hashes it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The exact string whose SHA-256 is the commitment (a reveal-mismatch's `preimage`). */
export function preimage(c: SealedChoice): string {
  return `sealed-v1|${c.gameId}|${c.step}|${c.seat}|${canonicalJson(c.move)}|${c.salt}`;
}

export function hex(bytes: ArrayBuffer | Uint8Array): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** hex(SHA-256(UTF-8 preimage)). */
export async function commitment(c: SealedChoice): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(preimage(c))));
}

export function newSalt(): string {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}
