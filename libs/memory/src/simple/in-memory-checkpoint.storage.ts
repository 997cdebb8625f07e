import type { CheckpointStorage, CheckpointListQuery } from '../core/checkpoint-storage.interface';
import { CheckpointThread, newestFirst } from '../core/checkpoint-thread';

/**
 * The LangGraph checkpoints of the in-process store: one {@link CheckpointThread} per thread, in
 * this process's memory, gone when it ends.
 */
export class InMemoryCheckpointStorage implements CheckpointStorage {
  private readonly threads = new Map<string, CheckpointThread>();

  async putCheckpoint(
    ...[record, blobs, messages]: Parameters<CheckpointStorage['putCheckpoint']>
  ) {
    return this.thread(record.threadId).putCheckpoint(record, blobs, messages);
  }

  async getCheckpoint(threadId: string, namespace: string, checkpointId?: string) {
    return this.threads.get(threadId)?.getCheckpoint(namespace, checkpointId) ?? null;
  }

  async listCheckpoints(query: CheckpointListQuery) {
    const threads =
      query.threadId === undefined
        ? [...this.threads.values()]
        : [this.threads.get(query.threadId)].filter((t) => t !== undefined);
    const found = threads
      .flatMap((thread) => thread.listCheckpoints({ ...query, limit: undefined }))
      .sort(newestFirst);
    return query.limit === undefined ? found : found.slice(0, query.limit);
  }

  async putWrites(...[address, writes]: Parameters<CheckpointStorage['putWrites']>) {
    this.thread(address.threadId).putWrites(address.namespace, address.checkpointId, writes);
  }

  async messageLogHead(threadId: string) {
    return this.threads.get(threadId)?.messageLogHead() ?? { count: 0, chain: '' };
  }

  async readMessages(...[threadId, ranges]: Parameters<CheckpointStorage['readMessages']>) {
    return this.threads.get(threadId)?.readMessages(ranges) ?? [];
  }

  async threadIds() {
    return [...this.threads.keys()];
  }

  async pruneThread(threadId: string, keepLatest: boolean) {
    const thread = this.threads.get(threadId);
    thread?.pruneThread(keepLatest);
    if (thread?.isEmpty()) this.threads.delete(threadId);
  }

  async deleteThread(threadId: string) {
    this.threads.delete(threadId);
  }

  private thread(threadId: string): CheckpointThread {
    let thread = this.threads.get(threadId);
    if (!thread) this.threads.set(threadId, (thread = new CheckpointThread(threadId)));
    return thread;
  }
}
