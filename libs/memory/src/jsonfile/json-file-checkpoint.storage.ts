import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointListQuery, CheckpointStorage } from '../core/checkpoint-storage.interface';
import {
  CheckpointThread,
  newestFirst,
  type CheckpointThreadJson,
} from '../core/checkpoint-thread';
import { writeFileAtomic } from './atomic-write';
import { withFileLock } from './file-lock';

/** The folder, inside a JSON-file backend's `dir`, that holds one file per LangGraph thread. */
export const JSON_FILE_CHECKPOINT_FOLDER = '.langgraph';

/** Longest thread id kept readable in a file name; longer ones are named by their digest. */
const READABLE_ID_LENGTH = 160;

interface ThreadFile extends CheckpointThreadJson {
  threadId: string;
}

/**
 * The LangGraph checkpoints of a JSON-file backend: one file per thread under
 * `<dir>/.langgraph/` holding its checkpoints, blobs, pending writes and message log. Every change
 * reads the file, changes it and replaces it atomically (temp file, fsync, rename) while holding
 * the file's cross-process lock, so several processes may share the folder; reads take no lock.
 */
export class JsonFileCheckpointStorage implements CheckpointStorage {
  private readonly folder: string;
  private ready: Promise<unknown> | null = null;

  constructor(dir: string) {
    this.folder = join(dir, JSON_FILE_CHECKPOINT_FOLDER);
  }

  async putCheckpoint(
    ...[record, blobs, messages]: Parameters<CheckpointStorage['putCheckpoint']>
  ) {
    return this.change(record.threadId, (thread) => thread.putCheckpoint(record, blobs, messages));
  }

  async getCheckpoint(threadId: string, namespace: string, checkpointId?: string) {
    return (await this.read(threadId))?.getCheckpoint(namespace, checkpointId) ?? null;
  }

  async listCheckpoints(query: CheckpointListQuery) {
    const threads =
      query.threadId === undefined
        ? await this.readAll()
        : [await this.read(query.threadId)].filter((t) => t !== null);
    const found = threads
      .flatMap((thread) => thread.listCheckpoints({ ...query, limit: undefined }))
      .sort(newestFirst);
    return query.limit === undefined ? found : found.slice(0, query.limit);
  }

  async putWrites(...[address, writes]: Parameters<CheckpointStorage['putWrites']>) {
    await this.change(address.threadId, (thread) =>
      thread.putWrites(address.namespace, address.checkpointId, writes),
    );
  }

  async messageLogHead(threadId: string) {
    return (await this.read(threadId))?.messageLogHead() ?? { count: 0, chain: '' };
  }

  async readMessages(...[threadId, ranges]: Parameters<CheckpointStorage['readMessages']>) {
    return (await this.read(threadId))?.readMessages(ranges) ?? [];
  }

  async threadIds() {
    return (await this.readAll()).map((thread) => thread.threadId);
  }

  async pruneThread(threadId: string, keepLatest: boolean) {
    await this.change(threadId, (thread) => thread.pruneThread(keepLatest));
  }

  async deleteThread(threadId: string) {
    const path = this.pathOf(threadId);
    await this.prepare();
    await withFileLock(threadId, path, () => removeIfPresent(path));
  }

  /** Reads the thread's file, applies `fn` and writes it back, under the file's lock. */
  private async change<T>(threadId: string, fn: (thread: CheckpointThread) => T): Promise<T> {
    const path = this.pathOf(threadId);
    await this.prepare();
    return withFileLock(threadId, path, async () => {
      const thread = (await this.read(threadId)) ?? new CheckpointThread(threadId);
      const result = fn(thread);
      if (thread.isEmpty()) await removeIfPresent(path);
      else {
        const file: ThreadFile = { threadId, ...thread.toJSON() };
        await writeFileAtomic(path, JSON.stringify(file), { stat: false });
      }
      return result;
    });
  }

  private async read(threadId: string): Promise<CheckpointThread | null> {
    return readThreadFile(this.pathOf(threadId));
  }

  private async readAll(): Promise<CheckpointThread[]> {
    const names = await readdir(this.folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[];
      throw error;
    });
    const threads = await Promise.all(
      names
        .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
        .map((name) => readThreadFile(join(this.folder, name))),
    );
    return threads.filter((thread) => thread !== null);
  }

  private prepare(): Promise<unknown> {
    return (this.ready ??= mkdir(this.folder, { recursive: true }));
  }

  private pathOf(threadId: string): string {
    const readable = Buffer.from(threadId, 'utf8').toString('base64url');
    const name =
      readable.length <= READABLE_ID_LENGTH
        ? `t-${readable}`
        : `h-${createHash('sha256').update(threadId).digest('hex')}`;
    return join(this.folder, `${name}.json`);
  }
}

async function readThreadFile(path: string): Promise<CheckpointThread | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const file = JSON.parse(text) as ThreadFile;
  return CheckpointThread.fromJSON(file.threadId, file);
}

async function removeIfPresent(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}
