import { createHash } from 'node:crypto';
import type {
  AgentInputItem,
  OpenAIResponsesCompactionArgs,
  OpenAIResponsesCompactionAwareSession,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from '@openai/agents';
import type { MemoryBackend } from '../core/backend.interface';
import { ConcurrentUpdateError, IdempotencyKeyReusedError } from '../core/errors';
import type {
  CallOptions,
  SaveResult,
  SessionStore,
  SnapshotState,
  SnapshotStore,
} from '../core/memory.interface';
import type { Message } from '../core/message';
import { summaryMessages } from '../core/snapshot';
import { fromAgentInputItems, toAgentInputItemGroups } from './agent-input-item.converter';
import { foldHistory, markerMessage, readMarker, type HistoryState } from './history-log';

/** What runs compaction on the session: `SummaryCompactor` fits (any object with this `compact`). */
export interface AgentSessionCompactor {
  compact(
    store: SnapshotStore,
    opts: { thresholdTokens: number; force?: boolean; signal?: AbortSignal },
  ): Promise<unknown>;
}

/** Options of {@link AgentMemorySession.open}. */
export interface AgentMemorySessionOptions {
  /**
   * Compaction after each turn: the SDK's runner calls `runCompaction` once a turn is stored, and
   * the session then runs `compactor` on what it holds (summarising the oldest messages into a
   * snapshot once the context reaches `thresholdTokens`). Without it, `runCompaction` does nothing.
   */
  compaction?: {
    compactor: AgentSessionCompactor;
    /** Default 150,000 (`DEFAULT_COMPACTION_THRESHOLD_TOKENS`). */
    thresholdTokens?: number;
    /** Told when a compaction fails (the history is then unchanged); without it the error is thrown to the run. */
    onError?: (error: unknown) => void;
  };
  /**
   * How many times `popItem` reads and tries again when another writer changed the session
   * between its read and its write. Default 5; then `ConcurrentUpdateError`.
   */
  popAttempts?: number;
}

const DEFAULT_THRESHOLD_TOKENS = 150_000;
const DEFAULT_POP_ATTEMPTS = 5;
const OPERATION_KEY_PREFIX = 'openai-agents:';

/**
 * An OpenAI Agents SDK `Session` on any of our backends, one session per id: pass it as
 * `run(agent, input, { session })`. Items are stored as our messages (converted losslessly, see
 * `fromAgentInputItems`), so other adapters, compaction and the admin API read the same
 * conversation.
 *
 * The stores only append; removing items (`popItem`, a transaction that replaces the history's
 * suffix) appends a marker message that names what it removes and the state it was decided on. A
 * marker takes effect only if nothing else took effect in between, so these changes are atomic
 * across processes on every store (see `docs/agent-sdks.md`). It also implements the SDK's
 * transactional history (`applyHistoryTransaction`): atomic, idempotent by `operationId` (an
 * idempotency key of the store), a stale suffix refused without change.
 */
export class AgentMemorySession
  implements SessionHistoryTransactionAwareSession, OpenAIResponsesCompactionAwareSession
{
  /** Operations of this object run one at a time, so its own reads and writes never race. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    /** The session these items live in. */
    readonly sessionId: string,
    private readonly store: SessionStore,
    private readonly options: AgentMemorySessionOptions,
  ) {}

  /**
   * Opens session `sessionId` on `backend`.
   * @throws InvalidSessionIdError when `sessionId` is not a valid session id.
   */
  static async open(
    backend: MemoryBackend,
    sessionId: string,
    opts: AgentMemorySessionOptions = {},
  ): Promise<AgentMemorySession> {
    return new AgentMemorySession(sessionId, await backend.open(sessionId), opts);
  }

  /** The session's id. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /**
   * The history, oldest first: after a compaction, the summary (a user message) and the task it
   * pinned, then the items since. With `limit`, only the newest `limit` items.
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const { state, snapshot } = await this.read();
    const messages = [
      ...(snapshot ? summaryMessages(snapshot) : []),
      ...state.live.map((entry) => entry.message),
    ];
    const items = toAgentInputItemGroups(messages).flat();
    if (limit === undefined) return items;
    return limit > 0 ? items.slice(-limit) : [];
  }

  /** Appends `items` in one atomic save. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.exclusive(() => this.store.save(fromAgentInputItems(items)));
  }

  /**
   * Removes the newest item and returns it; undefined when there is none (a compaction's summary
   * is never removed). Atomic: when another writer changed the session meanwhile, it reads again.
   * @throws ConcurrentUpdateError when the session kept changing for `popAttempts` tries.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.exclusive(async () => {
      const attempts = this.options.popAttempts ?? DEFAULT_POP_ATTEMPTS;
      for (let attempt = 0; attempt < attempts; attempt++) {
        const { state } = await this.read();
        const groups = toAgentInputItemGroups(state.live.map((entry) => entry.message));
        const newest = state.live[state.live.length - 1];
        const items = groups[groups.length - 1];
        if (!newest || !items) return undefined;
        const kept = fromAgentInputItems(items.slice(0, -1));
        const result = await this.store.save([
          markerMessage({ after: state.last, removes: [newest.cursor], size: kept.length }),
          ...kept,
        ]);
        if (await this.tookEffect(result)) return items[items.length - 1];
      }
      throw new ConcurrentUpdateError(this.sessionId, attempts);
    });
  }

  /** Removes the session's items, snapshot and metadata. */
  async clearSession(): Promise<void> {
    await this.exclusive(() => this.store.clear());
  }

  /**
   * Applies one SDK history transaction atomically and at most once per `operationId`:
   * `append_items` appends, `replace_suffix` replaces the history's last items if they still
   * equal `expectedSuffix`. A retry with the same operation and transaction changes nothing.
   * @throws IdempotencyKeyReusedError when `operationId` was used for another transaction.
   * @throws ConcurrentUpdateError when the history no longer ends with `expectedSuffix` (nothing changed).
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const { operationId, transaction } = args;
    if (typeof operationId !== 'string' || operationId.trim() === '') {
      throw new TypeError('applyHistoryTransaction: operationId must be a non-empty string');
    }
    const key = OPERATION_KEY_PREFIX + digest(operationId);
    await this.exclusive(async () => {
      if (transaction.type === 'append_items') {
        await this.store.save(fromAgentInputItems(transaction.items), { idempotencyKey: key });
        return;
      }
      const fingerprint = digest(JSON.stringify(transaction));
      const seen = await this.store.save([], { idempotencyKey: key });
      if (seen.replayed) return this.confirmApplied(seen, key, fingerprint);
      const { state } = await this.read();
      const plan = planSuffixReplacement(state, transaction.expectedSuffix);
      if (!plan) throw new ConcurrentUpdateError(this.sessionId, 1);
      const added = fromAgentInputItems([...plan.kept, ...transaction.replacement]);
      const marker = markerMessage({
        after: state.last,
        removes: plan.removes,
        size: added.length,
        transaction: fingerprint,
      });
      const result = await this.store.save([marker, ...added], { idempotencyKey: key });
      await this.confirmApplied(result, key, fingerprint);
    });
  }

  /**
   * The SDK's compaction hook, called by the runner after it stored a turn: runs the configured
   * compactor (nothing without `compaction`). Returns null: our compactor's model use is not the
   * run's model use.
   */
  async runCompaction(args?: OpenAIResponsesCompactionArgs): Promise<null> {
    const compaction = this.options.compaction;
    if (!compaction) return null;
    try {
      await compaction.compactor.compact(this.liveView(), {
        thresholdTokens: compaction.thresholdTokens ?? DEFAULT_THRESHOLD_TOKENS,
        force: args?.force === true,
      });
    } catch (error) {
      if (!compaction.onError) throw error;
      compaction.onError(error);
    }
    return null;
  }

  /** The stored log and the history it makes. */
  private async read(opts?: CallOptions): Promise<SnapshotState & { state: HistoryState }> {
    const loaded = await this.store.loadSnapshot(opts);
    return { ...loaded, state: foldHistory(loaded.snapshot, loaded.tail) };
  }

  /** Whether the marker batch saved as `result` took effect (its condition held). */
  private async tookEffect(result: SaveResult): Promise<boolean> {
    if (result.first === null) return false;
    const { state } = await this.read();
    return !state.void.has(result.first);
  }

  /** Checks that the batch saved under `key` applied this transaction and took effect. */
  private async confirmApplied(result: SaveResult, key: string, fingerprint: string) {
    if (result.first === null) return;
    const [first] = await this.store.entries({ after: result.first - 1, limit: 1 });
    // Pruned by a compaction since: it was stored long ago, and nothing is left to compare.
    if (!first || first.cursor !== result.first) return;
    const marker = readMarker(first.message);
    if (!marker || marker.transaction !== fingerprint) {
      throw new IdempotencyKeyReusedError(this.sessionId, key);
    }
    if (!(await this.tookEffect(result))) throw new ConcurrentUpdateError(this.sessionId, 1);
  }

  /** The store as compaction should see it: only the messages in effect, with their cursors. */
  private liveView(): SnapshotStore {
    const store = this.store;
    const loadSnapshot = async (opts?: CallOptions): Promise<SnapshotState> => {
      const { snapshot, state } = await this.read(opts);
      return { snapshot, tail: state.live };
    };
    return {
      loadSnapshot,
      async retrieve(_query?: string, opts?: CallOptions): Promise<Message[]> {
        const { snapshot, tail } = await loadSnapshot(opts);
        return [...(snapshot ? summaryMessages(snapshot) : []), ...tail.map((e) => e.message)];
      },
      save: (messages, opts) => store.save(messages, opts),
      clear: (opts) => store.clear(opts),
      saveSnapshot: (snapshot, upTo, prev, opts) => store.saveSnapshot(snapshot, upTo, prev, opts),
    };
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * Which stored messages replacing `expectedSuffix` removes, and the items of the first of them
 * that stay (a message can hold several items); undefined when the history does not end with it.
 */
function planSuffixReplacement(
  state: HistoryState,
  expectedSuffix: readonly AgentInputItem[],
): { removes: number[]; kept: AgentInputItem[] } | undefined {
  const groups = toAgentInputItemGroups(state.live.map((entry) => entry.message));
  const owners = groups.flatMap((items, index) => items.map(() => index));
  const items = groups.flat();
  const start = items.length - expectedSuffix.length;
  if (start < 0) return undefined;
  const actual = JSON.stringify(items.slice(start));
  if (actual !== JSON.stringify(JSON.parse(JSON.stringify(expectedSuffix)))) return undefined;
  if (expectedSuffix.length === 0) return { removes: [], kept: [] };
  const firstOwner = owners[start]!;
  const kept = items.filter((_item, index) => index < start && owners[index] === firstOwner);
  const removes = state.live.slice(firstOwner).map((entry) => entry.cursor);
  return { removes, kept };
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
