import type { CallOptions, Entry, SessionLog } from '../core/memory.interface';

/** Entries read per request while reading a session's whole log. */
const ENTRIES_PAGE_SIZE = 1000;

/** A session's whole kept log, oldest first, read a page at a time. */
export async function readWholeLog(store: SessionLog, opts: CallOptions = {}): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (;;) {
    const after = entries.at(-1)?.cursor;
    const page = await store.entries(
      { ...(after !== undefined ? { after } : {}), limit: ENTRIES_PAGE_SIZE },
      opts,
    );
    entries.push(...page);
    if (page.length < ENTRIES_PAGE_SIZE) return entries;
  }
}
