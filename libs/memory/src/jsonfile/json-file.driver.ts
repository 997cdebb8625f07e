import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { MemoryBackend } from '../core/backend.interface';
import { DEFAULT_COMPACTION_JOB_TTL_MS } from '../core/defaults';
import { DEFAULT_JSONFILE_MIN_FREE_MB, DEFAULT_MEMORY_DIR } from './json-file.defaults';
import type { MemoryDriver } from '../core/memory-driver';
import { readinessByCheck } from '../core/memory-readiness';
import { isValidSessionId } from '../core/session-id';
import { JSON_FILE_AUDIT_FOLDER, JsonFileAuditLog } from './json-file-audit.log';
import {
  JSON_FILE_JOBS_FOLDER,
  JsonFileCompactionJobStore,
} from './json-file-compaction-job.store';
import { jsonFileBackend, type JsonFileBackend } from './json-file.backend';
import { JSON_FILE_LEASES_FOLDER, JsonFileLeaseStore } from './json-file-lease.store';

/** The JSON-file store's settings. */
export interface JsonFileSettings {
  /** `MEMORY_DIR` (`--dir`): the sessions' folder. */
  dir: string;
  /** `MEMORY_JSONFILE_MIN_FREE_MB`: free MiB readiness wants on its filesystem (0: no floor). */
  minFreeMb: number;
}

/**
 * The JSON-file store (`jsonFileBackend`): sessions in `<dir>/<id>.json`, and next to them the
 * audit log (`<dir>/.audit`), the compaction jobs (`<dir>/.compaction-jobs`) and the leases
 * (`<dir>/.leases`), shared by every process on the folder.
 */
export const jsonFileDriver: MemoryDriver<JsonFileBackend, JsonFileSettings> = {
  kind: 'jsonfile',
  summary: 'JSON files in a folder',
  durable: true,
  settings: [
    {
      env: 'MEMORY_DIR',
      flag: 'dir',
      summary: 'the JSON files folder',
      default: DEFAULT_MEMORY_DIR,
    },
    {
      env: 'MEMORY_JSONFILE_MIN_FREE_MB',
      summary: 'free MiB its filesystem must keep for readiness (0: none)',
      default: String(DEFAULT_JSONFILE_MIN_FREE_MB),
    },
  ],
  readSettings: (reader) => ({
    dir: reader.string('MEMORY_DIR') ?? DEFAULT_MEMORY_DIR,
    minFreeMb: reader.integer(
      'MEMORY_JSONFILE_MIN_FREE_MB',
      DEFAULT_JSONFILE_MIN_FREE_MB,
      0,
      1 << 30,
    ),
  }),
  describeSettings: (settings) => `the JSON-file folder "${settings.dir}"`,
  async create(settings, context = {}) {
    // Reading a folder that is not there is a mistake (a wrong --dir), not an empty store.
    if (context.readOnly) await assertFolder(settings.dir);
    return jsonFileBackend({
      dir: settings.dir,
      minFreeBytes: settings.minFreeMb * 1024 * 1024,
      ...context.options,
      observer: context.observer,
      readOnly: context.readOnly ?? false,
    });
  },
  owns: (backend: MemoryBackend) =>
    backend.kind === 'jsonfile' && typeof (backend as Partial<JsonFileBackend>).dir === 'string',
  describe: (backend) => `the JSON-file folder "${backend.dir}"`,
  readiness: readinessByCheck,
  readinessDetails: () => ({}),
  auditLog: async (backend, { limits }) =>
    new JsonFileAuditLog({ dir: join(backend.dir, JSON_FILE_AUDIT_FOLDER), limits }),
  compactionJobStore: async (backend, options = {}) =>
    new JsonFileCompactionJobStore({
      dir: join(backend.dir, JSON_FILE_JOBS_FOLDER),
      ttlMs: options.ttlMs ?? DEFAULT_COMPACTION_JOB_TTL_MS,
      now: options.now,
    }),
  leaseStore: async (backend) =>
    new JsonFileLeaseStore({ dir: join(backend.dir, JSON_FILE_LEASES_FOLDER) }),
  storagePath: (backend) => backend.dir,
  checkpoints: async (backend) => backend.checkpointStorage,
  async storedSessionIds(backend) {
    const names = await readdir(backend.dir);
    return names
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .filter(isValidSessionId)
      .sort();
  },
};

/** @throws Error naming `dir` when it does not exist or is not a folder. */
async function assertFolder(dir: string): Promise<void> {
  const found = await stat(dir).catch(() => null);
  const where = `"${resolve(dir)}" (from --dir, else MEMORY_DIR, else ${DEFAULT_MEMORY_DIR})`;
  if (!found) throw new Error(`the folder ${where} does not exist`);
  if (!found.isDirectory()) throw new Error(`${where} is not a folder`);
}
