// Async iterators over the contract's pages: by cursor (games, the lobby, a player's games,
// leaderboards), by version (a game's events) and by offset (a webhook's deliveries).

/** Every item of every page: `next_cursor` passed back as `cursor` until null. */
export async function* byCursor<P extends { next_cursor?: string | null }, T>(
  page: (cursor: string | undefined) => Promise<P>,
  items: (page: P) => T[],
): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const got = await page(cursor);
    yield* items(got);
    if (got.next_cursor == null) return;
    cursor = got.next_cursor;
  }
}

/** Every event record after `after`: `next_after` while `has_more`. */
export async function* byVersion<T>(
  page: (after: number) => Promise<{ events: T[]; has_more: boolean; next_after: number }>,
  after = 0,
): AsyncGenerator<T> {
  for (;;) {
    const got = await page(after);
    yield* got.events;
    if (!got.has_more) return;
    after = got.next_after;
  }
}

/** Every item: `next_offset` passed back as `offset` until null. */
export async function* byOffset<P extends { next_offset?: number | null }, T>(
  page: (offset: number) => Promise<P>,
  items: (page: P) => T[],
): AsyncGenerator<T> {
  let offset = 0;
  for (;;) {
    const got = await page(offset);
    yield* items(got);
    if (got.next_offset == null) return;
    offset = got.next_offset;
  }
}

/** An async iterator's items in an array (a helper for small listings). */
export async function collect<T>(items: AsyncIterable<T>, limit = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}
