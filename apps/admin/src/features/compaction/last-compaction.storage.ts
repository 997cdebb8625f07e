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

const isLive = (job: CompactionJob) => job.state === 'queued' || job.state === 'running';

/**
 * The job to show as the session's last compaction: this tab's (which may still run) or the
 * server's record (finished, from any tab or replica), whichever is newer; for the same job, the
 * one further along.
 */
export function latestJob(
  tab: CompactionJob | null,
  server: CompactionJob | null | undefined,
): CompactionJob | null {
  if (!server) return tab;
  if (!tab) return server;
  if (tab.id === server.id) return isLive(tab) ? server : tab;
  return Date.parse(server.createdAt) > Date.parse(tab.createdAt) ? server : tab;
}
