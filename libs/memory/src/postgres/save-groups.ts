/**
 * Group commit for saves of one session in one process, keyed or not: while a save of a session
 * is in flight, later saves of that session wait, and when it returns they go together as one
 * statement (one lock, one commit) with each caller's batch still contiguous and in its own order,
 * batches in arrival order. Writers of one session are serialised until commit anyway (the advisory lock),
 * so combining what waits turns N commits into one without changing what anyone sees.
 */

/** Most batches combined into one statement. */
const MAX_BATCHES = 64;
/** Most messages combined into one statement (a single larger batch still goes alone). */
const MAX_MESSAGES = 2000;

/** One caller's batch: its messages (JSON texts) and, for a keyed save, its key and digest. */
export interface GroupedBatch {
  readonly messages: readonly string[];
  readonly key?: string;
  /** See `keyedBatchDigest`. */
  readonly digest?: string;
  /** The batch's digest in the form earlier releases stored (`batchDigest`), computed on demand. */
  readonly legacyDigest?: () => string;
}

/**
 * What became of one batch of a combined statement: `stored` with its cursors, `replayed` with
 * the cursors its key's first save stored, or `refused` (its key came with other messages).
 */
export interface BatchOutcome {
  readonly state: 'stored' | 'replayed' | 'refused';
  readonly first: number | null;
  readonly last: number | null;
}

/**
 * Saves `batches` in order in one statement and returns one outcome per batch, in the same order.
 * No two of the batches share a key.
 */
export type InsertCombined = (batches: readonly GroupedBatch[]) => Promise<BatchOutcome[]>;

interface Waiting {
  batch: GroupedBatch;
  signal: AbortSignal | undefined;
  resolve: (outcome: BatchOutcome) => void;
  reject: (error: unknown) => void;
}

interface Group {
  waiting: Waiting[];
}

/** The groups of one DataSource: sessions (by table and id) with a save in flight. */
export class SaveGroups {
  private readonly groups = new Map<string, Group>();

  /**
   * Saves `batch` of session `key` through `insert`, combined with the saves of `key` that are
   * waiting at the time (keyed or not; a batch whose idempotency key is already in the statement
   * goes in the next one). Resolves with this batch's outcome; rejects with the statement's error
   * (every batch of a failed statement fails, none is stored), or with the signal's reason when
   * it is aborted while still waiting (nothing of it is stored then).
   */
  save(
    key: string,
    batch: GroupedBatch,
    insert: InsertCombined,
    signal?: AbortSignal,
  ): Promise<BatchOutcome> {
    return new Promise<BatchOutcome>((resolve, reject) => {
      const entry: Waiting = { batch, signal, resolve, reject };
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
        const outcomes = await insert(taken.map((entry) => entry.batch));
        for (const [n, entry] of taken.entries()) entry.resolve(outcomes[n]!);
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

/**
 * Takes the next batches to combine off the front of `waiting`, in order, up to the first whose
 * key one of them already has (one statement records a key once); aborted ones are rejected.
 */
function takeBatches(waiting: Waiting[]): Waiting[] {
  const taken: Waiting[] = [];
  const keys = new Set<string>();
  let messages = 0;
  while (waiting.length > 0 && taken.length < MAX_BATCHES) {
    const next = waiting[0]!;
    if (next.signal?.aborted) {
      waiting.shift();
      next.reject(next.signal.reason);
      continue;
    }
    const { key, messages: batch } = next.batch;
    if (taken.length > 0 && messages + batch.length > MAX_MESSAGES) break;
    if (key !== undefined && keys.has(key)) break;
    if (key !== undefined) keys.add(key);
    waiting.shift();
    taken.push(next);
    messages += batch.length;
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
