import { Inject, Injectable } from '@nestjs/common';
import {
  CompactionService,
  MEMORY_BACKEND,
  TokenCounter,
  contextMessages,
  encodeSessionLine,
  readSessionLine,
  summaryMessages,
  type MemoryBackend,
} from '@agent-memory/memory';
import { ApiHttpError } from '../errors/api-http.error';
import { SessionsService } from '../sessions/sessions.service';
import type {
  ContextMessage,
  ContextTokens,
  CoveredEntry,
  SessionContext,
  SessionExport,
  TranscriptPage,
} from '@agent-memory/api-contract';

/** Entries read per request while exporting a whole session. */
const EXPORT_PAGE_SIZE = 1000;

/**
 * The read models the dashboard needs beyond the session routes: the transcript with per-message
 * token counts, the model's context split by source, and the whole session for export.
 */
@Injectable()
export class SessionViewsService {
  constructor(
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
    private readonly sessions: SessionsService,
    private readonly tokens: TokenCounter,
    private readonly compaction: CompactionService,
  ) {}

  /** `SessionsService.messages` with each message's tokens. @throws ApiHttpError 404. */
  async transcript(
    sessionId: string,
    page: { after: number | null; limit: number },
  ): Promise<TranscriptPage> {
    const { items, next } = await this.sessions.messages(sessionId, page);
    return {
      items: items.map((entry) => ({ ...entry, tokens: this.tokens.countMessage(entry.message) })),
      next,
    };
  }

  /**
   * What `retrieve()` returns now (summary message, pinned messages, then the tail with orphaned
   * tool results dropped), each message tagged with its source and tokens.
   * @throws ApiHttpError 404 when the session does not exist.
   */
  async context(sessionId: string): Promise<SessionContext> {
    await this.sessions.info(sessionId);
    const store = await this.backend.open(sessionId);
    const { snapshot, tail } = await store.loadSnapshot();
    const kept = new Set(
      contextMessages(
        snapshot,
        tail.map((entry) => entry.message),
      ),
    );
    const messages: ContextMessage[] = [];
    if (snapshot) {
      const [summary, ...pinned] = summaryMessages(snapshot);
      messages.push({ source: 'summary', cursor: null, message: summary!, tokens: 0 });
      for (const message of pinned)
        messages.push({ source: 'pinned', cursor: null, message, tokens: 0 });
    }
    for (const entry of tail) {
      if (kept.has(entry.message)) {
        messages.push({ source: 'tail', cursor: entry.cursor, message: entry.message, tokens: 0 });
      }
    }
    const totals = { summary: 0, pinned: 0, tail: 0, priming: 0, total: 0 };
    for (const item of messages) {
      item.tokens = this.tokens.countMessage(item.message);
      totals[item.source] += item.tokens;
    }
    // The total is the counter's own count of the list, which is what compaction compares.
    totals.total = this.tokens.count(messages.map((item) => item.message));
    // What the counter adds beyond the messages (the reply priming), so the parts add up.
    totals.priming = totals.total - totals.summary - totals.pinned - totals.tail;
    return { messages, tokens: totals, compactAt: this.compaction.thresholdTokens, snapshot };
  }

  /**
   * Tokens of each session's context now (what `GET /api/sessions/:id` calls `tokens`), for the
   * list's rows; null for a session that does not exist.
   */
  async contextTokens(sessionIds: string[]): Promise<ContextTokens> {
    const counts = await Promise.all(
      sessionIds.map(async (id) => {
        if ((await this.backend.inspect(id)) === null) return null;
        const store = await this.backend.open(id);
        const { snapshot, tail } = await store.loadSnapshot();
        return this.tokens.count(
          contextMessages(
            snapshot,
            tail.map((entry) => entry.message),
          ),
        );
      }),
    );
    return Object.fromEntries(sessionIds.map((id, i) => [id, counts[i]!]));
  }

  /** Empties the session (messages, snapshot, metadata), as `clear()` does. @throws ApiHttpError 404. */
  async clear(sessionId: string): Promise<void> {
    await this.sessions.info(sessionId);
    const store = await this.backend.open(sessionId);
    await store.clear();
    await this.sessions.forgetLastCompaction(sessionId);
  }

  /** The session as one line of JSON Lines, as `POST /api/import` takes it. @throws ApiHttpError 404. */
  async exportLine(sessionId: string): Promise<string> {
    await this.sessions.info(sessionId);
    const line = await readSessionLine(this.backend, sessionId);
    if (!line) {
      throw new ApiHttpError(404, 'SESSION_NOT_FOUND', `session "${sessionId}" was just deleted`);
    }
    return encodeSessionLine(line);
  }

  /** The whole session: info, snapshot and the kept log. @throws ApiHttpError 404. */
  async export(sessionId: string): Promise<SessionExport> {
    const session = await this.sessions.info(sessionId);
    const store = await this.backend.open(sessionId);
    const { snapshot } = await store.loadSnapshot();
    const messages: CoveredEntry[] = [];
    let after: number | undefined;
    for (;;) {
      const page = await store.entries({
        ...(after !== undefined ? { after } : {}),
        limit: EXPORT_PAGE_SIZE,
      });
      for (const entry of page) {
        messages.push({ ...entry, covered: snapshot !== null && entry.cursor <= snapshot.upTo });
      }
      if (page.length < EXPORT_PAGE_SIZE) break;
      after = page[page.length - 1]!.cursor;
    }
    return { exportedAt: new Date().toISOString(), session, snapshot, messages };
  }
}
