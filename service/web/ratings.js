// Whether a game is rated, and why not, in words: the rule of service/players/ratings.py as
// a person at the lobby meets it. A seat with a player id (the API's `external_id`) rates
// that player; a bot seat rates its level (one identity per level, however many seats it
// has); any other seat (a person without a player id, a resigned seat without one) is not
// rated; and a game with fewer than two rated identities changes nothing.

/** Who a seat rates ("p:<id>", "b:<level>", as the server spells it), or null. `seat` is a
 * seat of a create request, a seat grant or a game summary's seat: {type, level,
 * external_id, resigned}. tests/browser/test_lobby_ratings.py holds it to the server's. */
export function identity(seat) {
  if (seat.external_id) return `p:${seat.external_id}`;
  if (seat.type === "bot" && seat.level && !seat.resigned) return `b:${seat.level}`;
  return null;
}

function seatList(numbers) {
  const named = numbers.map((n) => `seat ${n}`);
  return named.length <= 1 ? named.join("") : `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}`;
}

/**
 * {rated, unnamed, text}: whether a game of these seats is rated once it is played to the
 * end, the seats no one is rated for, and the sentence that says so (why not, or which
 * seats are left out).
 */
export function rating(seats) {
  const rated = new Set();
  const unnamed = [];
  seats.forEach((seat, index) => {
    const who = identity(seat);
    if (who) rated.add(who);
    else unnamed.push(index);
  });
  const without = seatList(unnamed);
  const have = unnamed.length === 1 ? "has" : "have";
  if (rated.size < 2) {
    const why = unnamed.length
      ? `${capital(without)} ${have} no player id, and a game is rated only between two or more rated players (a person with a player id, or a bot level).`
      : "A game is rated only between two or more different players or bot levels, and this one has one.";
    return { rated: false, unnamed, text: `Not rated: ${why}` };
  }
  if (unnamed.length) {
    return { rated: true, unnamed, text: `Rated, but not for ${without}: a person's seat is rated only with a player id.` };
  }
  return { rated: true, unnamed, text: "Rated: played to the end, every seat's result counts on the leaderboard (a bot's for its level)." };
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
