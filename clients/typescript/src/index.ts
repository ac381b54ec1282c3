// stakeout's TypeScript client: fetch, streams and Web Crypto only, so this one entry runs in
// Node 20 and in a browser (`npm run build` also bundles it for pages without a bundler:
// dist/stakeout.browser.js). The wire types are generated from openapi/v1.json by
// openapi-typescript (src/wire.ts, `make clients`); the layer here holds what no generator
// knows: sealed steps, waiting for a turn, live feeds resumed from Last-Event-ID, page
// iterators, idempotency keys, retries after Retry-After, typed problems, clocks, presence
// and webhook signatures.
import type { components, paths } from "./wire.js";

export type { components, paths };
export type Schemas = components["schemas"];

export { Stakeout, bot, human, openSeat, type Options, type SeatSpec } from "./client.js";
export {
  Game,
  OVER,
  Seat,
  type EventFeedMessage,
  type EventRecord,
  type FeedKind,
  type GameView,
  type Move,
  type MoveAccepted,
  type Presence,
  type StreamOptions,
  type Turn,
  type ViewFeedMessage,
} from "./games.js";
export { Ticket } from "./tickets.js";
export {
  Conflict,
  Forbidden,
  GameFinished,
  IllegalMove,
  InvalidRequest,
  NotFound,
  NotYourTurn,
  PROBLEM_PREFIX,
  ProblemError,
  RateLimited,
  RevealMismatch,
  Unauthorized,
  Unavailable,
  VersionMismatch,
  problemOf,
} from "./problems.js";
export { canonicalJson, commitment, preimage, type SealedChoice } from "./sealed.js";
export { ServerClock, clockAt, presenceIn, withPresence, type ClockReading } from "./clocks.js";
export { byCursor, byOffset, byVersion, collect } from "./paging.js";
export { follow, type FollowOptions } from "./feeds.js";
export { Transport, idempotencyKey, type Retry } from "./transport.js";
export { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, sign, verifySignature } from "./webhooks.js";
export type {
  AccountFeedMessage,
  EventMessage,
  EventsMessage,
  GameFeedMessage,
  Notification,
  PingMessage,
  PresenceMessage,
  SeatPresence,
  ViewMessage,
} from "./messages.js";
