// The live feeds' messages, typed. The contract types their parts (EventRecord, GameView,
// Presence, Substitution, the notifications); the envelopes (`kind`, `version`, `cursor`)
// are JSON lines (Accept: application/x-ndjson), written here by hand.
import type { components } from "./wire.js";

type S = components["schemas"];

/** One seat's presence as a `presence` message and a view's seats[i] carry it. */
export interface SeatPresence {
  seat: number;
  /** null: no person plays the seat, the game is over, or the server's presence is off. */
  presence: S["Presence"] | null;
  substituted: S["Substitution"] | null;
}

/** Not an event: no version; sent when a seat's presence or substitution changes. */
export interface PresenceMessage {
  kind: "presence";
  seats: SeatPresence[];
}
export interface PingMessage {
  kind: "ping";
}
/** The event feed (`feed: "events"`): one event record per message. */
export type EventMessage = { kind: "event" } & S["EventRecord"];
/** The view feed (`feed: "view"`): the caller's whole view. */
export interface ViewMessage {
  kind: "view";
  version: number;
  view: S["GameView"];
}
/** The view feed: a batch of event records, before the view after them. */
export interface EventsMessage {
  kind: "events";
  version: number;
  events: S["EventRecord"][];
}
export type GameFeedMessage = EventMessage | ViewMessage | EventsMessage | PresenceMessage | PingMessage;

/** The account feed: a webhook notification of any kind, with its position. */
export type Notification =
  | S["SeatAwaitedNotification"]
  | S["GameStartedNotification"]
  | S["GameFinishedNotification"]
  | S["GameAbortedNotification"]
  | S["RematchCreatedNotification"]
  | S["ResultRecordedNotification"]
  | S["MatchFoundNotification"];
export type AccountFeedMessage = Notification & { cursor: string };
