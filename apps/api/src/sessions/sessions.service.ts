import { Inject, Injectable } from '@nestjs/common';
import type {
  ListSessionsQuery,
  MemoryBackend,
  Message,
  SessionInfo,
  SessionPage,
} from '@agent-memory/memory';
import {
  MEMORY_BACKEND,
  TokenCounter,
  assertSessionId,
  CompactionService,
  contextMessages,
} from '@agent-memory/memory';
import { ApiHttpError } from '../errors/api-http.error';
import { LastCompactions } from '../compactions/last-compactions';
import { CompactionJobsService } from '../compactions/compaction-jobs.service';
import type { AppendResult, MessagesPage, SessionDetail } from '@agent-memory/api-contract';

/** The sessions routes over the `MemoryBackend` port. Unknown sessions are `404 SESSION_NOT_FOUND`. */
@Injectable()
export class SessionsService {
  constructor(
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
    private readonly tokens: TokenCounter,
    private readonly compaction: CompactionService,
    private readonly compactionJobs: CompactionJobsService,
    private readonly lastCompactions: LastCompactions,
  ) {}

  /** @throws InvalidQueryError for a page token the backend did not make. */
  list(query: ListSessionsQuery): Promise<SessionPage> {
    return this.backend.list(query);
  }

  /** @throws ApiHttpError 404 when the session does not exist. */
  async info(sessionId: string): Promise<SessionInfo> {
    assertSessionId(sessionId);
    const info = await this.backend.inspect(sessionId);
    if (!info)
      throw new ApiHttpError(404, 'SESSION_NOT_FOUND', `session "${sessionId}" does not exist`);
    return info;
  }

  async detail(sessionId: string): Promise<SessionDetail> {
    const info = await this.info(sessionId);
    const store = await this.backend.open(sessionId);
    // One read: the context `retrieve` would return is the snapshot and the messages after it.
    const { snapshot, tail } = await store.loadSnapshot();
    const context = contextMessages(
      snapshot,
      tail.map((entry) => entry.message),
    );
    return {
      ...info,
      snapshot,
      tokens: await this.tokens.countAsync(context),
      compactAt: this.compaction.thresholdTokens,
      lastCompaction: await this.lastCompactions.last(sessionId),
    };
  }

  /**
   * The kept log after cursor `after`, oldest first (`SessionLog.entries`), covered messages
   * included while they are kept (`pruneCompacted` off); `covered` marks entries at or before the
   * snapshot's `upTo`. One entry more than `limit` is read to know whether a next page exists.
   */
  async messages(
    sessionId: string,
    page: { after: number | null; limit: number },
  ): Promise<MessagesPage> {
    const { snapshotUpTo } = await this.info(sessionId);
    const store = await this.backend.open(sessionId);
    const read = await store.entries({
      ...(page.after !== null ? { after: page.after } : {}),
      limit: page.limit + 1,
    });
    const items = read.slice(0, page.limit).map((entry) => ({
      ...entry,
      covered: snapshotUpTo !== null && entry.cursor <= snapshotUpTo,
    }));
    const last = items[items.length - 1];
    return { items, next: read.length > page.limit && last ? last.cursor : null };
  }

  /**
   * Appends one batch (validated before anything is written; a new id starts a session), then
   * schedules a compaction check, as after an agent's turn. Answers from what `save` returned,
   * with no second read, so a committed write is never reported as failed; a repeated
   * `idempotencyKey` stores nothing and answers as the first time (with another body:
   * `IdempotencyKeyReusedError`, 422).
   */
  async append(
    sessionId: string,
    messages: Message[],
    idempotencyKey?: string,
  ): Promise<AppendResult> {
    assertSessionId(sessionId);
    const store = await this.backend.open(sessionId);
    const saved = await store.save(messages, idempotencyKey ? { idempotencyKey } : undefined);
    if (!saved.replayed) this.compactionJobs.afterTurn(sessionId, messages);
    const appended = saved.first === null || saved.last === null ? 0 : saved.last - saved.first + 1;
    return { appended, first: saved.first, last: saved.last, replayed: saved.replayed };
  }

  /** Sets each key ('' removes it); a new id starts a session holding only metadata. */
  async patchMeta(sessionId: string, meta: Record<string, string>): Promise<SessionInfo> {
    assertSessionId(sessionId);
    const store = await this.backend.open(sessionId);
    for (const [key, value] of Object.entries(meta)) await store.setMeta(key, value);
    return this.info(sessionId);
  }

  async delete(sessionId: string): Promise<void> {
    await this.info(sessionId);
    await this.backend.delete(sessionId);
    await this.lastCompactions.forget(sessionId);
  }

  /** Forgets the session's last compaction (after a clear: its snapshot is gone). */
  forgetLastCompaction(sessionId: string): Promise<void> {
    return this.lastCompactions.forget(sessionId);
  }
}
