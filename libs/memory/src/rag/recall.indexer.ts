import type { MemoryBackend } from '../core/backend.interface';
import type { Cursor } from '../core/memory.interface';
import type { ResolvedRecallOptions } from './recall-options.interface';
import {
  MAX_PAYLOAD_TEXT_CHARS,
  embeddableText,
  messageVectorId,
  type MessagePayload,
} from './recall-payload';
import type { VectorRecord } from './vector-store.interface';

const PAGE_SIZE = 256;
const EMBED_CHUNK = 32;
const MAX_RETRY_DELAY_MS = 60_000;

interface SessionState {
  /** Bumped by `forget`: a job that started before it writes nothing. */
  generation: number;
  queued: boolean;
  running: boolean;
  /** Scheduled while running: run once more afterwards. */
  dirty: boolean;
  failures: number;
  retryTimer: NodeJS.Timeout | null;
  /** The last cursor read by a finished job; undefined until the first one finishes. */
  readUpTo: Cursor | undefined;
  /** The cursors of the last `messageRange + 1` entries read, oldest first. */
  recent: Cursor[];
  /** The job running now, if any. */
  current: Promise<void> | null;
}

/**
 * Embeds stored messages off the request path: `schedule(sessionId)` after a save queues one job
 * per session (scheduling it again while queued does nothing; while running, it runs once more
 * afterwards). Jobs run one at a time per backend; a job reads the log past what it has indexed,
 * embeds user and assistant text and upserts the vectors. A failed job is reported to `onError`
 * and retried with a doubling delay; a save never waits for it and never fails because of it.
 */
export class RecallIndexer {
  private readonly states = new Map<string, SessionState>();
  private readonly queue: string[] = [];
  private pumping = false;
  private closed = false;
  private readonly abort = new AbortController();
  private idleWaiters: Array<() => void> = [];
  private catchingUp: Promise<void> | null = null;

  constructor(
    private readonly backend: MemoryBackend,
    private readonly options: ResolvedRecallOptions,
  ) {}

  /** Queues an indexing job for the session (no-op once closed). */
  schedule(sessionId: string): void {
    if (this.closed) return;
    const state = this.state(sessionId);
    if (state.running) {
      state.dirty = true;
      return;
    }
    if (state.queued) return;
    if (state.retryTimer) {
      clearTimeout(state.retryTimer);
      state.retryTimer = null;
    }
    state.queued = true;
    this.queue.push(sessionId);
    void this.pump();
  }

  /**
   * Forgets a session that was cleared or deleted: its queued job is dropped, a running one writes
   * nothing, and its vectors are deleted.
   * @returns how many vectors were deleted.
   */
  async forget(sessionId: string): Promise<number> {
    const state = this.state(sessionId);
    state.generation++;
    state.readUpTo = undefined;
    state.recent = [];
    state.failures = 0;
    state.dirty = false;
    if (state.retryTimer) clearTimeout(state.retryTimer);
    state.retryTimer = null;
    if (state.queued) {
      this.queue.splice(this.queue.indexOf(sessionId), 1);
      state.queued = false;
    }
    // A running job writes nothing once the generation moved, but an upsert already sent must
    // land before the delete.
    await state.current?.catch(() => undefined);
    const removed = await this.options.store.delete({ session: sessionId });
    this.notifyIfIdle();
    return removed;
  }

  /** Queues a job for every session of the backend (what a start-up catch-up does). */
  catchUp(): Promise<void> {
    this.catchingUp ??= (async () => {
      let after: string | undefined;
      do {
        if (this.closed) return;
        const page = await this.backend.list({ limit: 500, ...(after ? { after } : {}) });
        for (const item of page.items) this.schedule(item.id);
        after = page.next ?? undefined;
      } while (after);
    })()
      .catch((error: unknown) => this.options.onError(error, null, 'index'))
      .finally(() => {
        this.catchingUp = null;
        this.notifyIfIdle();
      });
    return this.catchingUp;
  }

  /** Resolves once no job is queued, running or waiting for a retry. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking jobs, aborts the running one and cancels retries. */
  async close(): Promise<void> {
    this.closed = true;
    this.abort.abort(new Error('the recall indexer is closing'));
    this.queue.length = 0;
    for (const state of this.states.values()) {
      if (state.retryTimer) clearTimeout(state.retryTimer);
      state.retryTimer = null;
      state.queued = false;
    }
    await this.catchingUp;
    while (this.pumping) await new Promise<void>((resolve) => setImmediate(resolve));
    this.notifyIfIdle(true);
  }

  private state(sessionId: string): SessionState {
    let state = this.states.get(sessionId);
    if (!state) {
      state = {
        generation: 0,
        queued: false,
        running: false,
        dirty: false,
        failures: 0,
        retryTimer: null,
        readUpTo: undefined,
        recent: [],
        current: null,
      };
      this.states.set(sessionId, state);
    }
    return state;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && this.queue.length > 0) {
        const sessionId = this.queue.shift()!;
        const state = this.state(sessionId);
        state.queued = false;
        state.running = true;
        try {
          state.current = this.index(sessionId, state);
          await state.current;
          state.failures = 0;
        } catch (error) {
          if (!this.closed) this.retryLater(sessionId, state, error);
        } finally {
          state.running = false;
          state.current = null;
        }
        if (state.dirty) {
          state.dirty = false;
          this.schedule(sessionId);
        }
      }
    } finally {
      this.pumping = false;
      this.notifyIfIdle();
    }
  }

  private retryLater(sessionId: string, state: SessionState, error: unknown): void {
    state.failures++;
    this.options.onError(error, sessionId, 'index');
    const delayMs = Math.min(
      this.options.retryDelayMs * 2 ** (state.failures - 1),
      MAX_RETRY_DELAY_MS,
    );
    state.retryTimer = setTimeout(() => {
      state.retryTimer = null;
      this.schedule(sessionId);
    }, delayMs);
    state.retryTimer.unref();
  }

  private async index(sessionId: string, state: SessionState): Promise<void> {
    const { embedder, store, messageRange, resourceMetaKey, includeToolMessages } = this.options;
    const generation = state.generation;
    const signal = this.abort.signal;
    const session = await this.backend.open(sessionId);
    // The first job in this process reads the log from its start, to know each new message's
    // neighbours; it embeds only what the store does not hold yet.
    const firstRun = state.readUpTo === undefined;
    const indexedUpTo = firstRun ? await store.lastCursor(sessionId) : state.readUpTo!;
    let after = firstRun ? undefined : state.readUpTo;
    const recent = firstRun ? [] : [...state.recent];
    const resource = (await session.meta())[resourceMetaKey] || null;
    const pending: { text: string; record: Omit<VectorRecord, 'vector'> }[] = [];
    for (;;) {
      signal.throwIfAborted();
      const page = await session.entries({
        ...(after !== undefined ? { after } : {}),
        limit: PAGE_SIZE,
      });
      for (const { cursor, message, savedAt } of page) {
        const text =
          indexedUpTo === null || indexedUpTo === undefined || cursor > indexedUpTo
            ? embeddableText(message, includeToolMessages)
            : null;
        if (text !== null) {
          const windowAfter =
            recent.length > messageRange ? recent[recent.length - messageRange - 1]! : null;
          const before = windowAfter === null ? recent.length : messageRange;
          const payload: MessagePayload = {
            kind: 'message',
            role: message.role,
            text: text.slice(0, MAX_PAYLOAD_TEXT_CHARS),
            // When it was said, not when it was indexed (a restart re-indexes): none if unknown.
            ...(savedAt !== undefined ? { at: savedAt } : {}),
            windowAfter,
            before,
          };
          pending.push({
            text,
            record: {
              id: messageVectorId(sessionId, cursor),
              session: sessionId,
              resource,
              cursor,
              payload: payload as unknown as Record<string, unknown>,
            },
          });
        }
        recent.push(cursor);
        if (recent.length > messageRange + 1) recent.shift();
      }
      if (page.length > 0) after = page[page.length - 1]!.cursor;
      if (page.length < PAGE_SIZE) break;
    }
    for (let i = 0; i < pending.length; i += EMBED_CHUNK) {
      const chunk = pending.slice(i, i + EMBED_CHUNK);
      const vectors = await embedder.embed(
        chunk.map((item) => item.text),
        { signal },
      );
      if (state.generation !== generation) return;
      await store.upsert(chunk.map((item, j) => ({ ...item.record, vector: vectors[j]! })));
    }
    if (state.generation !== generation || after === undefined) return;
    state.readUpTo = after;
    state.recent = recent;
  }

  private isIdle(): boolean {
    if (this.pumping || this.queue.length > 0 || this.catchingUp) return false;
    for (const state of this.states.values()) {
      if (state.running || state.queued || state.retryTimer) return false;
    }
    return true;
  }

  private notifyIfIdle(force = false): void {
    if (!force && !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
