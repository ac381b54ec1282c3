// The public v1 API from the browser: fetch with a bearer credential, problems as errors.

export class Problem extends Error {
  /** A refused request: RFC 9457 problem fields (`title`, `detail`, `type`, `status`). */
  constructor(status, body) {
    const title = (body && body.title) || `HTTP ${status}`;
    const detail = (body && body.detail) || "";
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.type = (body && body.type) || "";
    this.body = body;
  }

  /** The problem's code: "not-your-turn" for "urn:stakeout:problem:not-your-turn". */
  get code() {
    return this.type.split(":").pop();
  }

  /**
   * The problem in one sentence for a person: its detail (the specific reason), or its title
   * where the title says it better (a detail that is a validator's message, say).
   */
  get words() {
    if (!this.detail || TITLE_FIRST.has(this.code)) return sentence(this.title);
    return sentence(this.detail);
  }
}

// Problems whose detail is for a developer (a validator's message) or adds nothing a person
// at the table needs: their title is the sentence.
const TITLE_FIRST = new Set(["invalid-request", "not-your-turn", "token-in-url", "too-many-requests", "unsupported-media-type"]);

/** "the game is over" -> "The game is over." */
export function sentence(text) {
  const trimmed = String(text || "").trim();
  if (!trimmed) return "";
  const capital = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * One API call. `auth` is a seat token or an API key (or nothing); `body` is sent as JSON.
 * Acts (POST) carry an Idempotency-Key, so a retried click never acts twice.
 * Returns the decoded JSON (null for an empty answer); throws Problem on 4xx/5xx.
 */
export async function api(path, { method = "GET", body, auth, headers = {} } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (auth) sent.Authorization = `Bearer ${auth}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  if (method === "POST" && !sent["Idempotency-Key"]) sent["Idempotency-Key"] = randomKey();
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch (error) {
    console.warn(error);
    throw new Problem(0, { title: "The server cannot be reached: check that it is running, then try again" });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { title: text.slice(0, 200) };
    }
  }
  if (!response.ok) throw new Problem(response.status, data);
  return data;
}
