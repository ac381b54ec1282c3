// The sealed-commitment scheme (docs/api-guide.md, "Sealed steps"): a seat commits
// hex(SHA-256(UTF-8 "sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}")), move as canonical
// JSON (keys sorted, no spaces), salt 16 random bytes in hex; it reveals move and salt later.

/** JSON with sorted keys and no spaces, as the server hashes a move. */
export function canonical(value) {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  return JSON.stringify(value);
}

export function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function fromHex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(2 * i, 2), 16);
  return out;
}

/** hex SHA-256 of bytes or of a string's UTF-8. */
export async function sha256(data) {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

export function newSalt() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

export function preimage(gameId, step, seat, move, salt) {
  return `sealed-v1|${gameId}|${step}|${seat}|${canonical(move)}|${salt}`;
}

export async function commitment(gameId, step, seat, move, salt) {
  return sha256(preimage(gameId, step, seat, move, salt));
}
