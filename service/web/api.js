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

  /** The problem in words for a person. */
  get words() {
    return this.detail ? `${this.title}. ${this.detail}` : this.title;
  }
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
    throw new Problem(0, { title: "The server cannot be reached", detail: String(error.message || error) });
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
