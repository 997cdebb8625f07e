import { MAX_LIST_LIMIT, RESOURCE_META_KEY, type MemoryBackend } from '../core/backend.interface';
import { CorruptSessionError } from '../core/errors';
import type { CallOptions } from '../core/memory.interface';
import { encodeSessionLine, type SessionLine } from './session-line';
import { readWholeLog } from './whole-log';

/** Sessions listed per page while exporting: the most a backend gives at once. */
const LIST_PAGE_SIZE = MAX_LIST_LIMIT;

/** Options of {@link exportSessions}. */
export interface ExportSessionsOptions extends CallOptions {
  /** Only the sessions whose `resource` meta equals this. Default: every session. */
  resource?: string;
  /**
   * Called for a listed session whose stored data does not decode (`CorruptSessionError`), which
   * is then left out and the export goes on. Without it, such a session stops the export with
   * that error: a session is never left out silently.
   */
  onUnreadable?(sessionId: string, error: CorruptSessionError): void;
}

/**
 * Every session of `backend` (or of one resource) as JSON Lines, one session a line ending with a
 * newline, newest first. Lazy: a session is read when its line is asked for, so a consumer that
 * writes with backpressure (`stream.pipeline(Readable.from(lines), out)`) keeps one page of the
 * listing and one session in memory. A session written while the export runs may be missed or
 * appear twice (the listing is ordered by last update); sessions deleted meanwhile are left out.
 * @throws CorruptSessionError for a session that cannot be read, unless `onUnreadable` is given.
 */
export async function* exportSessions(
  backend: MemoryBackend,
  opts: ExportSessionsOptions = {},
): AsyncGenerator<string> {
  let after: string | undefined;
  do {
    opts.signal?.throwIfAborted();
    const page = await backend.list({
      limit: LIST_PAGE_SIZE,
      ...(after !== undefined ? { after } : {}),
      ...(opts.resource !== undefined ? { resource: opts.resource } : {}),
    });
    for (const info of page.items) {
      // Checked again here: a custom backend that ignores the filter must not leak other resources.
      if (opts.resource !== undefined && info.meta[RESOURCE_META_KEY] !== opts.resource) continue;
      let session: SessionLine | null;
      try {
        session = await readSessionLine(backend, info.id, opts);
      } catch (error) {
        if (!(error instanceof CorruptSessionError) || !opts.onUnreadable) throw error;
        opts.onUnreadable(info.id, error);
        continue;
      }
      if (session) yield encodeSessionLine(session);
    }
    after = page.next ?? undefined;
  } while (after !== undefined);
}

/**
 * One session as a {@link SessionLine}: its metadata, latest snapshot and kept log. The snapshot is
 * read before the log, so a compaction racing the read leaves the log covering at least the
 * snapshot. Null when the session does not exist.
 */
export async function readSessionLine(
  backend: MemoryBackend,
  sessionId: string,
  opts: CallOptions = {},
): Promise<SessionLine | null> {
  if ((await backend.inspect(sessionId)) === null) return null;
  const store = await backend.open(sessionId);
  const meta = await store.meta();
  const { snapshot } = await store.loadSnapshot(opts);
  return { id: sessionId, meta, snapshot, entries: await readWholeLog(store, opts) };
}
