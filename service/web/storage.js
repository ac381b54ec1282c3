// What the browser keeps (localStorage): the API key, seat tokens per game, and the secret
// (move + salt) of each sealed step until it is revealed. Nothing here leaves the browser
// except as the API asks for it.

const PREFIX = "stakeout.";

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + key) || "null");
  } catch {
    return null;
  }
}

function write(key, value) {
  if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
  else localStorage.setItem(PREFIX + key, JSON.stringify(value));
}

export const apiKey = {
  get: () => read("apiKey") || "",
  set: (key) => write("apiKey", key || null),
};

/** Seat tokens of one game: {seat number: token}. */
export const seats = {
  all: (gameId) => read(`seats.${gameId}`) || {},
  add(gameId, seat, token) {
    const known = seats.all(gameId);
    known[seat] = token;
    write(`seats.${gameId}`, known);
  },
  /** The seat to play: the one asked for, else the lowest this browser holds. */
  pick(gameId, wanted) {
    const known = seats.all(gameId);
    const numbers = Object.keys(known).map(Number).sort((a, b) => a - b);
    const seat = wanted !== null && wanted !== undefined && wanted in known ? wanted : numbers[0];
    return seat === undefined ? null : { seat, token: known[seat] };
  },
};

/** A sealed step's secret, kept until the reveal is accepted (survives a reload). */
export const sealed = {
  key: (gameId, seat, step) => `sealed.${gameId}.${seat}.${step}`,
  get: (gameId, seat, step) => read(sealed.key(gameId, seat, step)),
  set(gameId, seat, step, secret) {
    write(sealed.key(gameId, seat, step), secret);
    write(`sealed.${gameId}.${seat}`, step);
  },
  drop(gameId, seat, step) {
    write(sealed.key(gameId, seat, step), null);
    if (sealed.current(gameId, seat) === step) write(`sealed.${gameId}.${seat}`, null);
  },
  /** The step whose secret this browser holds, not yet revealed (or null). */
  current: (gameId, seat) => read(`sealed.${gameId}.${seat}`),
};

/** This browser's player id for quick matches, and the ticket it is waiting on. */
export const player = {
  get: () => read("player") || "",
  set: (id) => write("player", id || null),
};

/** The matchmaking ticket being waited on: {id, secret, game} (or null). */
export const ticket = {
  get: () => read("ticket"),
  set: (value) => write("ticket", value || null),
};
