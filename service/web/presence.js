// Who is at the table (issue #34): each seat's presence dot, and the line saying a bot
// plays an away seat's turns. Presence is not a fact of the game: it comes with each view
// (`seats[i].presence`, `seats[i].substituted`) and, between views, in the live feed's
// `presence` messages (`merge`).

import { h } from "./dom.js";

/** "14:02" for a moment today, "3 Dec 14:02" for an earlier one (the browser's time zone). */
export function clockTime(ms, now = Date.now()) {
  const when = new Date(ms);
  const time = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (when.toDateString() === new Date(now).toDateString()) return time;
  return `${when.toLocaleDateString([], { day: "numeric", month: "short" })} ${time}`;
}

/** The presence in words: "online", "away since 14:02", "not seen yet". */
export function presenceWords(presence) {
  if (presence.status === "online") return "online";
  if (presence.status === "away") return presence.last_seen_ms ? `away since ${clockTime(presence.last_seen_ms)}` : "away";
  return "not seen yet";
}

/** The seat's dot (null for a seat no person plays, whose presence is null). */
export function presenceDot(presence) {
  if (!presence) return null;
  const words = presenceWords(presence);
  return h("span", { class: "presence", role: "img", "data-presence": presence.status, title: words, "aria-label": words });
}

/** "Bo is away: a bot plays their turns until they are back." for a substituted seat,
 * and since when. */
export function awayLine(info, name, isYou) {
  if (!info.substituted) return null;
  const text = isYou
    ? "You are away: a bot plays your turns until you are back."
    : `${name} is away: a bot plays their turns until they are back.`;
  const since = h("span", { class: "since" }, ` Since ${clockTime(info.substituted.since_ms)}.`);
  return h("p", { class: "away-line", "data-away-seat": info.seat }, text, since);
}

/** The view with a `presence` message's seats in it (a new object; the view stays as is). */
export function merge(view, message) {
  const seats = view.seats.map((info) => {
    const news = (message.seats || []).find((s) => s.seat === info.seat);
    return news ? { ...info, presence: news.presence, substituted: news.substituted } : info;
  });
  return { ...view, seats };
}
