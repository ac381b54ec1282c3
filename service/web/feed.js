// The live view feed of one game: a single-use stream ticket, then an EventSource on
// `/v1/games/{id}/stream?feed=view`. The server sends the caller's whole view first, then,
// after each batch of events, an `events` message and the new `view`. When the connection
// drops, a new ticket is taken and the feed resumes after the last version seen
// (`after_version`, as `Last-Event-ID` does for the event feed). No polling. Between views,
// a `presence` message (no id: it is no version of the game) brings every seat's presence.

import { api } from "./api.js";

const ENDED = new Set(["finished", "aborted", "abandoned"]);

export class ViewFeed {
  /**
   * @param {string} gameId
   * @param {string|null} token  seat token, or null for a spectator
   * @param {{onView: Function, onEvents?: Function, onPresence?: Function, onState?: Function}} handlers
   *   onState(state): "connecting" | "live" | "reconnecting" | "ended";
   *   onPresence({seats: [{seat, presence, substituted}]})
   */
  constructor(gameId, token, handlers) {
    this.gameId = gameId;
    this.token = token;
    this.handlers = handlers;
    this.version = 0;
    this.status = "";
    this.source = null;
    this.retry = 500;
    this.stopped = false;
    this.drops = 0;
  }

  start() {
    this.connect();
  }

  stop() {
    this.stopped = true;
    if (this.source) this.source.close();
  }

  state(name) {
    if (this.handlers.onState) this.handlers.onState(name);
  }

  async connect() {
    if (this.stopped) return;
    this.state(this.drops ? "reconnecting" : "connecting");
    let ticket;
    try {
      ticket = await api(`/v1/games/${this.gameId}/stream-tickets`, {
        method: "POST",
        auth: this.token,
      });
    } catch (problem) {
      // No stream tickets on this server, or none for this caller (a spectator of a game
      // that is not public): the view's long-poll serves anyone who may read the view.
      if ([401, 403, 404, 405].includes(problem.status)) return this.longPoll();
      return this.later();
    }
    const query = new URLSearchParams({ ticket: ticket.ticket, feed: "view" });
    if (this.version) query.set("after_version", String(this.version));
    const source = new EventSource(`/v1/games/${this.gameId}/stream?${query}`);
    this.source = source;
    // Each message is {kind: "view", view}, {kind: "events", events} or a presence
    // message, named by its kind (an unnamed message is read by its kind too).
    const receive = (message) => {
      const data = JSON.parse(message.data);
      if (data.kind === "presence" || message.type === "presence") {
        if (this.handlers.onPresence) this.handlers.onPresence(data);
      } else if (data.kind === "events" || message.type === "events") {
        if (this.handlers.onEvents) this.handlers.onEvents(data.events || []);
      } else if (data.kind === "view" || message.type === "view") {
        this.view(data.view || data);
      }
    };
    for (const name of ["view", "events", "presence", "message"]) source.addEventListener(name, receive);
    source.addEventListener("open", () => {
      this.retry = 500;
      this.state("live");
    });
    source.addEventListener("error", () => {
      source.close();
      if (this.source !== source || this.stopped) return;
      if (ENDED.has(this.status)) {
        this.state("ended");
        return;
      }
      this.drops += 1;
      this.later();
    });
  }

  /** Without a ticket: the view's long-poll (each answer waits for a change, up to 25 s). */
  async longPoll() {
    this.state("live");
    while (!this.stopped && !ENDED.has(this.status)) {
      try {
        const query = `?after_version=${this.version}&wait=25`;
        this.view(await api(`/v1/games/${this.gameId}${query}`, { auth: this.token }));
        this.state("live");
      } catch (problem) {
        if (problem.status >= 400 && problem.status < 500 && problem.status !== 429) {
          this.state("refused");
          return;
        }
        this.state("reconnecting");
        await new Promise((done) => setTimeout(done, 1000));
      }
    }
    if (!this.stopped) this.state("ended");
  }

  later() {
    if (this.stopped) return;
    this.state("reconnecting");
    setTimeout(() => this.connect(), this.retry);
    this.retry = Math.min(this.retry * 2, 4000);
  }

  view(view) {
    if (view.version < this.version) return;
    this.version = view.version;
    this.status = view.status;
    this.handlers.onView(view);
  }
}
