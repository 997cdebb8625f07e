import type { CompactionJob } from '../../lib/api-types';

/** The last compaction job started from this tab, per session, so its result stays visible. */
const KEY_PREFIX = 'agent-memory.last-compaction.';

export function storedLastJob(sessionId: string): CompactionJob | null {
  try {
    const raw = window.sessionStorage.getItem(KEY_PREFIX + sessionId);
    return raw ? (JSON.parse(raw) as CompactionJob) : null;
  } catch {
    return null;
  }
}

export function storeLastJob(sessionId: string, job: CompactionJob): void {
  try {
    window.sessionStorage.setItem(KEY_PREFIX + sessionId, JSON.stringify(job));
  } catch {
    // storage full or disabled: the result is still on screen
  }
}
