/**
 * This process's writes per session file: one at a time, in order, and saves that wait while one
 * runs go out together (a group commit). Cross-process exclusion is the file lock's job.
 */
export class SessionWriteQueue {
  private readonly writing = new Map<string, Promise<unknown>>();
  private readonly waitingSaves = new Map<string, unknown[]>();

  /** Runs `fn` after the writes already queued on `path` in this process. */
  serialize<T>(path: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.writing.get(path) ?? Promise.resolve()).then(fn);
    const settled = run.catch(() => undefined);
    this.writing.set(path, settled);
    void settled.then(() => {
      if (this.writing.get(path) === settled) this.writing.delete(path);
    });
    return run;
  }

  /**
   * Queues `item` for the next group write of `path`: saves that wait while an earlier write of
   * the same session runs are handed to `flush` together, once, in the order they came (a group
   * commit: one lock, one append and one fdatasync for all of them).
   */
  enqueue<T>(path: string, item: T, flush: (items: T[]) => Promise<void>): void {
    const waiting = this.waitingSaves.get(path) as T[] | undefined;
    if (waiting) {
      waiting.push(item);
      return;
    }
    const group = [item];
    this.waitingSaves.set(path, group);
    void this.serialize(path, () => {
      this.waitingSaves.delete(path);
      return flush(group);
    }).catch(() => undefined);
  }
}
