import { Inject, Injectable } from '@nestjs/common';
import {
  assertSessionId,
  MEMORY_BACKEND,
  textContent,
  type MemoryBackend,
} from '@agent-memory/memory';
import { hasRecall } from '@agent-memory/memory/rag';
import { ApiHttpError, invalidField } from '../errors/api-http.error';
import type { RecallView } from '@agent-memory/api-contract';

/** Longest query the route embeds (characters). */
export const MAX_RECALL_QUERY_CHARS = 4000;

/** What recall would add to a session's context for a query (docs/admin-api.md#routes). */
@Injectable()
export class RecallService {
  constructor(@Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend) {}

  /**
   * @throws ApiHttpError 400 for a missing or too long `q`, 404 for an unknown session, 501 when
   *   the server runs without recall.
   */
  async recall(sessionId: string, q: unknown): Promise<RecallView> {
    assertSessionId(sessionId);
    if (typeof q !== 'string')
      throw invalidField('INVALID_QUERY', 'q', 'give the query text as ?q=');
    if (q.length > MAX_RECALL_QUERY_CHARS) {
      throw invalidField(
        'INVALID_QUERY',
        'q',
        `at most ${MAX_RECALL_QUERY_CHARS} characters, got ${q.length}`,
      );
    }
    const backend = this.backend;
    if (!hasRecall(backend)) {
      throw new ApiHttpError(
        501,
        'RECALL_NOT_CONFIGURED',
        'semantic recall is not configured on this server: set MEMORY_RECALL_EMBEDDER ' +
          '(hashed, offline or openai) and restart it',
      );
    }
    if (!(await backend.inspect(sessionId))) {
      throw new ApiHttpError(404, 'SESSION_NOT_FOUND', `session "${sessionId}" does not exist`);
    }
    const result = await backend.recall(sessionId, q);
    return {
      query: result.query,
      ranges: result.ranges,
      message: result.message ? textContent(result.message) : null,
    };
  }
}
