import type { MemoryBackend } from '../core/backend.interface';
import type { CallOptions, Cursor, Entry, SessionStore } from '../core/memory.interface';
import { systemMessage, textContent, type Message, type Role } from '../core/message';
import { drawContext } from '../core/context-drawing';
import type { ResolvedRecallOptions } from './recall-options.interface';
import { withTimeout } from '../core/timeout';
import { EmbeddingFailedError } from './rag.errors';
import { asMessagePayload, embeddableText } from './recall-payload';
import type { VectorFilter, VectorHit } from './vector-store.interface';

/** One quoted message of a recall. */
export interface RecalledMessage {
  cursor: Cursor;
  role: Role;
  text: string;
  /** ISO time its batch was saved, when the store knows it (quoted only for found messages). */
  at: string | null;
  /** The similarity when the query found this message; null for a neighbour. */
  score: number | null;
}

/** A run of neighbouring messages of one session, in log order. */
export interface RecalledRange {
  session: string;
  messages: RecalledMessage[];
}

/** What recall adds for a query: the ranges and the one system message quoting them (null: nothing). */
export interface RecallResult {
  query: string;
  ranges: RecalledRange[];
  message: Message | null;
}

/** One message `RecallBackend.search` found. */
export interface RecallSearchHit {
  sessionId: string;
  cursor: Cursor;
  role: Role;
  /** The text that was embedded (at most `MAX_PAYLOAD_TEXT_CHARS` characters of it). */
  text: string;
  /** ISO time its batch was saved; absent when the store does not know it. */
  savedAt?: string;
  /** Cosine similarity to the query, in [-1, 1]; higher is closer. */
  score: number;
}

/** Where `RecallBackend.search` looks: one session, the sessions of one resource, or (neither) all. */
export interface RecallSearchScope {
  sessionId?: string;
  /** The resource as recall recorded it (the sessions' `resourceMetaKey` meta, `resource` by default). */
  resource?: string;
  /** Most hits returned. */
  limit: number;
}

/** The first line of the recall system message. */
export const RECALL_HEADER =
  'Recalled from earlier conversation (older messages that may help with the latest request):';

/**
 * Recall for one session: the context it has now (snapshot, pinned, tail), then the `topK`
 * nearest indexed messages outside that context in the configured scope, each with its
 * `messageRange` neighbours, overlapping ranges merged, in log order.
 */
export class RecallEngine {
  constructor(
    private readonly backend: MemoryBackend,
    private readonly options: ResolvedRecallOptions,
  ) {}

  /**
   * The context `retrieve` returns, with the recall message first when something was recalled.
   * When the query's embedding fails or passes `queryTimeoutMs`, the context comes without recall
   * (the failure goes to `onError`): a slow model never holds a turn.
   */
  async retrieve(
    sessionId: string,
    session: SessionStore,
    query: string | undefined,
    opts?: CallOptions,
  ): Promise<Message[]> {
    const state = await session.loadSnapshot(opts);
    const context = drawContext(
      session,
      state.snapshot,
      state.tail.map((entry) => entry.message),
    );
    if (!query?.trim()) return context;
    try {
      const recalled = await this.recallOutside(
        sessionId,
        session,
        state.snapshot?.pinned ?? [],
        state.tail,
        query,
        opts,
      );
      return recalled.message ? [recalled.message, ...context] : context;
    } catch (error) {
      if (!(error instanceof EmbeddingFailedError) || opts?.signal?.aborted) throw error;
      return context;
    }
  }

  /**
   * What recall would add to `retrieve(query)` for the session (a blank query recalls nothing).
   * @throws EmbeddingFailedError when the query's embedding fails or passes `queryTimeoutMs`.
   */
  async recall(
    sessionId: string,
    session: SessionStore,
    query: string,
    opts?: CallOptions,
  ): Promise<RecallResult> {
    if (!query.trim()) return { query, ranges: [], message: null };
    const state = await session.loadSnapshot(opts);
    return this.recallOutside(
      sessionId,
      session,
      state.snapshot?.pinned ?? [],
      state.tail,
      query,
      opts,
    );
  }

  /**
   * The indexed messages nearest to `query` in `scope`, best first, whatever the sessions' contexts
   * hold now (`minScore` applies; a blank query finds nothing).
   * @throws EmbeddingFailedError when the query's embedding fails or passes `queryTimeoutMs`.
   */
  async search(
    query: string,
    scope: RecallSearchScope,
    opts?: CallOptions,
  ): Promise<RecallSearchHit[]> {
    if (!query.trim()) return [];
    const filter: VectorFilter = {};
    if (scope.sessionId !== undefined) filter.session = scope.sessionId;
    if (scope.resource !== undefined) filter.resource = scope.resource;
    const vector = await this.embedQuery(scope.sessionId ?? null, query, opts?.signal);
    const { minScore } = this.options;
    const hits: RecallSearchHit[] = [];
    for (const hit of await this.options.store.query(vector, scope.limit, filter)) {
      const payload = asMessagePayload(hit.payload);
      if (!payload || hit.session === null || hit.cursor === null) continue;
      if (minScore !== null && hit.score < minScore) continue;
      hits.push({
        sessionId: hit.session,
        cursor: hit.cursor,
        role: payload.role,
        text: payload.text,
        ...(payload.at ? { savedAt: payload.at } : {}),
        score: hit.score,
      });
    }
    return hits;
  }

  private async recallOutside(
    sessionId: string,
    session: SessionStore,
    pinned: readonly Message[],
    tail: readonly Entry[],
    query: string,
    opts?: CallOptions,
  ): Promise<RecallResult> {
    const { store, topK, minScore, scope, resourceMetaKey } = this.options;
    const filter: VectorFilter = { session: sessionId };
    if (scope === 'resource') {
      const resource = (await session.meta())[resourceMetaKey];
      if (resource) {
        delete filter.session;
        filter.resource = resource;
      }
    }
    if (tail.length > 0) filter.exclude = { session: sessionId, fromCursor: tail[0]!.cursor };
    const vector = await this.embedQuery(sessionId, query, opts?.signal);
    const pinnedTexts = new Set(pinned.map((m) => `${m.role}\n${textContent(m).trim()}`));
    const inContext = (s: string, cursor: Cursor, role: Role, text: string): boolean =>
      (s === sessionId && tail.length > 0 && cursor >= tail[0]!.cursor) ||
      pinnedTexts.has(`${role}\n${text.trim()}`);
    const hits = (await store.query(vector!, topK, filter)).filter(
      (hit): hit is VectorHit & { session: string; cursor: Cursor } => {
        const payload = asMessagePayload(hit.payload);
        return (
          payload !== null &&
          hit.session !== null &&
          hit.cursor !== null &&
          (minScore === null || hit.score >= minScore) &&
          !inContext(hit.session, hit.cursor, payload.role, payload.text)
        );
      },
    );
    if (hits.length === 0) return { query, ranges: [], message: null };
    const sessions = new Map<string, Promise<SessionStore>>([
      [sessionId, Promise.resolve(session)],
    ]);
    const windows = await Promise.all(
      hits.map(async (hit) => {
        let open = sessions.get(hit.session);
        if (!open) {
          open = this.backend.open(hit.session);
          sessions.set(hit.session, open);
        }
        const messages = await this.window(await open, hit, opts);
        return {
          session: hit.session,
          messages: messages.filter((m) => !inContext(hit.session, m.cursor, m.role, m.text)),
        };
      }),
    );
    const ranges = mergeRanges(windows.filter((w) => w.messages.length > 0));
    return { query, ranges, message: ranges.length ? recallMessage(ranges, sessionId) : null };
  }

  /**
   * The query's vector within `queryTimeoutMs`: the embedder is aborted at the deadline, and not
   * waited for past it even if it ignores the signal. A failure is reported to `onError`.
   * @throws EmbeddingFailedError; the caller's abort reason when `signal` aborts first.
   */
  private async embedQuery(
    sessionId: string | null,
    query: string,
    signal: AbortSignal | undefined,
  ): Promise<number[]> {
    const { embedder, queryTimeoutMs, onError } = this.options;
    const overDeadline = (): EmbeddingFailedError =>
      new EmbeddingFailedError(
        embedder.model,
        `the query's embedding took longer than queryTimeoutMs (${queryTimeoutMs} ms)`,
      );
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(overDeadline()), queryTimeoutMs);
    timer.unref();
    try {
      const combined = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
      const [vector] = await withTimeout(
        embedder.embed([query], { signal: combined }),
        queryTimeoutMs,
        overDeadline,
      );
      return vector!;
    } catch (error) {
      if (signal?.aborted) throw error;
      const failure =
        error instanceof EmbeddingFailedError
          ? error
          : new EmbeddingFailedError(
              embedder.model,
              error instanceof Error ? error.message : String(error),
              undefined,
              { cause: error },
            );
      onError(failure, sessionId, 'query');
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The found message and its neighbours as the log holds them now (the payload alone if it is gone). */
  private async window(
    session: SessionStore,
    hit: VectorHit & { session: string; cursor: Cursor },
    opts?: CallOptions,
  ): Promise<RecalledMessage[]> {
    const payload = asMessagePayload(hit.payload)!;
    const range = this.options.messageRange;
    const found: RecalledMessage = {
      cursor: hit.cursor,
      role: payload.role,
      text: payload.text,
      at: payload.at ?? null,
      score: hit.score,
    };
    if (range === 0) return [found];
    const entries = await session.entries(
      {
        ...(payload.windowAfter !== null ? { after: payload.windowAfter } : {}),
        limit: payload.before + 1 + range,
      },
      opts,
    );
    const index = entries.findIndex((entry) => entry.cursor === hit.cursor);
    if (index < 0) return [found];
    return entries
      .slice(Math.max(0, index - range), index + range + 1)
      .map((entry) => (entry.cursor === hit.cursor ? found : neighbour(entry)))
      .filter((m): m is RecalledMessage => m !== null);
  }
}

/** A neighbour as quoted: its text and tool calls, `[non-text content]` for an image; no system messages. */
function neighbour(entry: Entry): RecalledMessage | null {
  if (entry.message.role === 'system') return null;
  const text =
    embeddableText(entry.message, true) ??
    (entry.message.parts.some((p) => p.type !== 'text') ? '[non-text content]' : null);
  if (text === null) return null;
  return { cursor: entry.cursor, role: entry.message.role, text, at: null, score: null };
}

/** Merges windows of one session that overlap, keeping every message once, in log order. */
export function mergeRanges(windows: readonly RecalledRange[]): RecalledRange[] {
  const bySession = new Map<string, RecalledRange[]>();
  for (const w of windows) {
    const list = bySession.get(w.session) ?? [];
    list.push({
      session: w.session,
      messages: [...w.messages].sort((a, b) => a.cursor - b.cursor),
    });
    bySession.set(w.session, list);
  }
  const merged: RecalledRange[] = [];
  for (const list of bySession.values()) {
    list.sort((a, b) => a.messages[0]!.cursor - b.messages[0]!.cursor);
    let current: RecalledRange | null = null;
    for (const range of list) {
      const last: RecalledMessage | undefined = current?.messages[current.messages.length - 1];
      if (current && last && range.messages[0]!.cursor <= last.cursor) {
        const byCursor = new Map(current.messages.map((m) => [m.cursor, m]));
        for (const m of range.messages) {
          const known = byCursor.get(m.cursor);
          if (!known || (known.score === null && m.score !== null)) byCursor.set(m.cursor, m);
        }
        current.messages = [...byCursor.values()].sort((a, b) => a.cursor - b.cursor);
      } else {
        current = { session: range.session, messages: range.messages };
        merged.push(current);
      }
    }
  }
  // Log order: by the time of a range's first stamped message, then by cursor.
  const firstAt = (r: RecalledRange): string => r.messages.find((m) => m.at)?.at ?? '';
  return merged.sort(
    (a, b) => firstAt(a).localeCompare(firstAt(b)) || a.messages[0]!.cursor - b.messages[0]!.cursor,
  );
}

/** The one system message that quotes the recalled ranges. */
export function recallMessage(ranges: readonly RecalledRange[], sessionId: string): Message {
  const blocks = ranges.map((range) => {
    const where =
      range.session === sessionId ? 'this conversation' : `conversation "${range.session}"`;
    const lines = range.messages.map((m) => {
      const when = m.at ? ` at ${m.at}` : '';
      return `${m.role}${when}: ${m.text.replace(/\n/g, '\n  ')}`;
    });
    return [`--- from ${where}`, ...lines].join('\n');
  });
  return systemMessage([RECALL_HEADER, ...blocks].join('\n\n'));
}
