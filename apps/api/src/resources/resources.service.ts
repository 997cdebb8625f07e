import { Inject, Injectable } from '@nestjs/common';
import { CompactionService, MEMORY_BACKEND, type MemoryBackend } from '@agent-memory/memory';
import type { EraseReceipt } from '@agent-memory/api-contract';

/** Erasing one resource's data (docs/operations.md#erase-one-persons-data). */
@Injectable()
export class ResourcesService {
  constructor(
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
    private readonly compaction: CompactionService,
  ) {}

  /**
   * Erases every session of `resource` (with its recall vectors, when recall is on), then the
   * compaction jobs of those sessions, and answers with what was removed. Running it again
   * answers zeros: a retry after a lost answer is safe.
   * @throws InvalidQueryError (field `resource`) for an empty or unstorable resource.
   */
  async erase(resource: string): Promise<EraseReceipt> {
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
}
