import { CorruptSessionError } from '../core/errors';
import { withKeyCopy } from './key-copy';
import { readSessionFile } from './session-file-read';
import {
  assertSnapshotInRange,
  NO_SESSION,
  parseSessionText,
  refreshLog,
  type SessionState,
} from './session-state';

/**
 * The parsed sessions of one folder, by path, revalidated by the files' identity (inode, size,
 * modification time) on each load: an unchanged file is not parsed again, and a grown log is read
 * from where the cache stopped. At most `cachedSessions` are kept, the least recently used dropped
 * first. Loads of one session run one at a time.
 */
export class ParsedSessionCache {
  private readonly cache = new Map<string, SessionState>();
  private readonly loading = new Map<string, Promise<SessionState>>();
  private readonly nextLoad = new Map<string, Promise<SessionState>>();

  /** @param cachedSessions how many parsed sessions to keep. */
  constructor(private readonly cachedSessions: number) {}

  /**
   * The session as its files hold it now: the result of a load that starts after this call (so
   * a write committed before the call, by any process, is in it). Loads of one session run one
   * at a time; calls that arrive while one runs share the next one.
   */
  load(session: string, path: string): Promise<SessionState> {
    const queued = this.nextLoad.get(path);
    if (queued) return queued;
    const running = this.loading.get(path);
    const start = (): Promise<SessionState> => {
      const load = this.loadNow(session, path).finally(() => {
        if (this.loading.get(path) === load) this.loading.delete(path);
      });
      this.loading.set(path, load);
      return load;
    };
    if (!running) return start();
    const next = running
      .catch(() => undefined)
      .then(() => {
        this.nextLoad.delete(path);
        return start();
      });
    this.nextLoad.set(path, next);
    return next;
  }

  private async loadNow(session: string, path: string): Promise<SessionState> {
    for (let attempt = 0; ; attempt++) {
      const cached = this.cache.get(path) ?? null;
      const file = await readSessionFile(path, cached?.file?.identity ?? null);
      if (file === null) {
        this.cache.delete(path);
        return NO_SESSION;
      }
      let state: SessionState;
      if (file === 'unchanged') {
        state = cached!;
      } else if (cached && file.text === cached.file!.text) {
        // Only the time changed (an append stamps it): the parsed head still holds.
        state = cached;
        state.file = file;
      } else {
        this.cache.delete(path);
        state = parseSessionText(session, file.text, file);
        await withKeyCopy(path, state);
      }
      try {
        if (state.form === 'log') await refreshLog(session, path, state);
        assertSnapshotInRange(session, state);
      } catch (error) {
        this.cache.delete(path);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 5) continue;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new CorruptSessionError(session, `its log ${state.log!.head.log} is missing`);
        }
        throw error;
      }
      this.remember(path, state);
      return state;
    }
  }

  /** The state cached for `path`, if any. */
  get(path: string): SessionState | undefined {
    return this.cache.get(path);
  }

  /** Caches `state` for `path` as the most recently used, dropping the least recently used past the limit. */
  remember(path: string, state: SessionState): void {
    this.cache.delete(path);
    this.cache.set(path, state);
    if (this.cache.size > this.cachedSessions) this.cache.delete(this.cache.keys().next().value!);
  }

  /** Drops what is cached for `path`. */
  forget(path: string): void {
    this.cache.delete(path);
  }

  /** Waits until no load of `path` runs or waits, so a caller can update the cache in one step. */
  async settle(path: string): Promise<void> {
    for (;;) {
      const load = this.nextLoad.get(path) ?? this.loading.get(path);
      if (!load) return;
      await load.catch(() => undefined);
    }
  }
}
