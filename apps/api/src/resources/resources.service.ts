import { Inject, Injectable } from '@nestjs/common';
import {
  CompactionService,
  MAX_LIST_LIMIT,
  MEMORY_BACKEND,
  type MemoryBackend,
} from '@agent-memory/memory';
import type { EraseReceipt } from '@agent-memory/api-contract';

/** Erasing one resource's data (docs/operations.md#erase-one-persons-data). */
@Injectable()
export class ResourcesService {
  constructor(
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
    private readonly compaction: CompactionService,
  ) {}

  /**
   * Erases every session of `resource` (with its recall vectors, when recall is on) and the
   * compaction jobs of those sessions, and answers with what was removed. The jobs of the sessions
   * listed first are deleted before the sessions, so that a failure there (503) leaves the
   * sessions for a retry to find; the jobs of every session erased are deleted again after (jobs
   * that finished meanwhile, sessions that took the resource meanwhile). Running it again answers
   * zeros: a retry after a lost answer is safe.
   * @throws InvalidQueryError (field `resource`) for an empty or unstorable resource.
   */
  async erase(resource: string): Promise<EraseReceipt> {
    await this.compaction.forgetSessions(await this.sessionIdsOf(resource));
    const erased = await this.backend.erase({ resource });
    await this.compaction.forgetSessions(erased.sessionIds);
    return {
      resource,
      sessions: erased.sessions,
      messages: erased.messages,
      vectors: erased.vectors,
      erasedAt: new Date().toISOString(),
    };
  }

  private async sessionIdsOf(resource: string): Promise<string[]> {
    const ids: string[] = [];
    let after: string | undefined;
    do {
      const page = await this.backend.list({ resource, limit: MAX_LIST_LIMIT, after });
      ids.push(...page.items.map((info) => info.id));
      after = page.next ?? undefined;
    } while (after);
    return ids;
  }
}
