/**
 * Group commit for saves of one session in one process: while a save of a session is in flight,
 * later saves of that session wait, and when it returns they go together as one statement (one
 * lock, one commit) with each caller's batch still contiguous and in its own order, batches in
 * arrival order. Writers of one session are serialised until commit anyway (the advisory lock),
 * so combining what waits turns N commits into one without changing what anyone sees.
 */

/** Most batches combined into one statement. */
const MAX_BATCHES = 64;
/** Most messages combined into one statement (a single larger batch still goes alone). */
const MAX_MESSAGES = 2000;

/**
 * Inserts `messages` (the batches concatenated, in order) in one statement and returns the seqs
 * drawn, in ascending order: one per message.
 */
export type InsertCombined = (messages: readonly string[]) => Promise<number[]>;

interface Waiting {
  messages: readonly string[];
  signal: AbortSignal | undefined;
  resolve: (seqs: number[]) => void;
  reject: (error: unknown) => void;
}

interface Group {
  waiting: Waiting[];
}

/** The groups of one DataSource: sessions (by table and id) with a save in flight. */
export class SaveGroups {
  private readonly groups = new Map<string, Group>();

  /**
   * Saves `messages` of session `key` through `insert`, combined with the saves of `key` that are
   * waiting at the time. Resolves with this batch's seqs; rejects with the statement's error
   * (every batch of a failed statement fails, none is stored), or with the signal's reason when
   * it is aborted while still waiting (nothing of it is stored then).
   */
  save(
    key: string,
    messages: readonly string[],
    insert: InsertCombined,
    signal?: AbortSignal,
  ): Promise<number[]> {
    return new Promise<number[]>((resolve, reject) => {
      const entry: Waiting = { messages, signal, resolve, reject };
      const group = this.groups.get(key);
      if (group) {
        group.waiting.push(entry);
        return;
      }
      const fresh: Group = { waiting: [entry] };
      this.groups.set(key, fresh);
      void this.drain(key, fresh, insert);
    });
  }

  private async drain(key: string, group: Group, insert: InsertCombined): Promise<void> {
    while (group.waiting.length > 0) {
      const taken = takeBatches(group.waiting);
      if (taken.length === 0) continue;
      try {
        const seqs = await insert(taken.flatMap((entry) => entry.messages));
        let at = 0;
        for (const entry of taken) {
          entry.resolve(seqs.slice(at, at + entry.messages.length));
          at += entry.messages.length;
        }
      } catch (error) {
        for (const entry of taken) entry.reject(error);
      }
      // The callers just answered usually save again at once (a loop of turns): one turn of the
      // event loop lets them queue with those already waiting, so they go in the next statement
      // rather than one after another.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.groups.delete(key);
  }
}

/** Takes the next batches to combine off the front of `waiting`; aborted ones are rejected. */
function takeBatches(waiting: Waiting[]): Waiting[] {
  const taken: Waiting[] = [];
  let messages = 0;
  while (waiting.length > 0 && taken.length < MAX_BATCHES) {
    const next = waiting[0]!;
    if (next.signal?.aborted) {
      waiting.shift();
      next.reject(next.signal.reason);
      continue;
    }
    if (taken.length > 0 && messages + next.messages.length > MAX_MESSAGES) break;
    waiting.shift();
    taken.push(next);
    messages += next.messages.length;
  }
  return taken;
}

const byDataSource = new WeakMap<object, SaveGroups>();

/** The save groups of `dataSource` (one per DataSource, shared by every store opened on it). */
export function saveGroupsOf(dataSource: object): SaveGroups {
  let groups = byDataSource.get(dataSource);
  if (!groups) {
    groups = new SaveGroups();
    byDataSource.set(dataSource, groups);
  }
  return groups;
}
