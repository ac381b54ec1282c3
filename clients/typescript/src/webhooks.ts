// Checking a webhook delivery's signature, for receivers (docs/api-guide.md, "Webhooks"):
//   Stakeout-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
// Web Crypto only, so a receiver on Node 20, Deno, Bun or a worker runtime can use it.
import { hex } from "./sealed.js";

export const SIGNATURE_HEADER = "Stakeout-Signature";
/** The notification's id, the same on every attempt: de-duplicate on it. */
export const DELIVERY_HEADER = "Stakeout-Delivery";
export const EVENT_HEADER = "Stakeout-Event";

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}

/** The header value the server sends for `body` at `timestamp` (unix seconds). */
export async function sign(secret: string, body: string | Uint8Array, timestamp: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
  );
  const prefix = new TextEncoder().encode(`${timestamp}.`);
  const raw = bytesOf(body);
  const signed = new Uint8Array(prefix.length + raw.length);
  signed.set(prefix);
  signed.set(raw, prefix.length);
  return `t=${timestamp},v1=${hex(await crypto.subtle.sign("HMAC", key, signed))}`;
}

/** True when `header` signs the raw `body` with `secret` within `toleranceSeconds` of now
 * (an older timestamp is a replay). Never throws on a malformed header. */
export async function verifySignature(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array,
  { toleranceSeconds = 300, nowSeconds }: { toleranceSeconds?: number; nowSeconds?: number } = {},
): Promise<boolean> {
  if (!header) return false;
  const parts = new Map(
    header.split(",").map((item) => {
      const at = item.indexOf("=");
      return [item.slice(0, at).trim(), item.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = Number(parts.get("t"));
  const given = parts.get("v1");
  if (!Number.isInteger(timestamp) || !given) return false;
  const expected = (await sign(secret, body, timestamp)).split("v1=")[1];
  const now = nowSeconds ?? Date.now() / 1000;
  return Math.abs(now - timestamp) <= toleranceSeconds && constantTimeEqual(expected, given);
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
