import { mkdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  leaseHeldByAnother,
  type LeaseRecord,
  type LeaseStore,
} from '../core/lease-store.interface';
import { writeFileAtomic } from './atomic-write';
import { withFileLock } from './file-lock';

/** The folder, in the JSON-file store's folder, that holds its leases. */
export const JSON_FILE_LEASES_FOLDER = '.leases';

/** Options of {@link JsonFileLeaseStore}. */
export interface JsonFileLeaseStoreOptions {
  /** The leases' folder, such as `join(MEMORY_DIR, JSON_FILE_LEASES_FOLDER)`; created when missing. */
  dir: string;
}

/**
 * Leases as files, `<dir>/<name>.json`, for the processes that share a JSON-file folder: each
 * claim reads, compares and replaces its file under the file's cross-process lock.
 */
export class JsonFileLeaseStore implements LeaseStore {
  private ready: Promise<unknown> | null = null;

  constructor(private readonly options: JsonFileLeaseStoreOptions) {}

  async claim(name: string, owner: string, expiresAt: number, now: number): Promise<boolean> {
    await this.folder();
    return withFileLock(name, this.path(name), async () => {
      if (leaseHeldByAnother(await this.get(name), owner, now)) return false;
      await writeFileAtomic(this.path(name), JSON.stringify({ owner, expiresAt }));
      return true;
    });
  }

  async release(name: string, owner: string): Promise<void> {
    await this.folder();
    await withFileLock(name, this.path(name), async () => {
      if ((await this.get(name))?.owner !== owner) return;
      await unlink(this.path(name)).catch(() => undefined);
    });
  }

  async get(name: string): Promise<LeaseRecord | null> {
    try {
      const stored = JSON.parse(await readFile(this.path(name), 'utf8')) as Partial<LeaseRecord>;
      return typeof stored.owner === 'string' && typeof stored.expiresAt === 'number'
        ? { owner: stored.owner, expiresAt: stored.expiresAt }
        : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  private folder(): Promise<unknown> {
    this.ready ??= mkdir(this.options.dir, { recursive: true });
    return this.ready;
  }

  private path(name: string): string {
    return join(this.options.dir, `${name}.json`);
  }
}
