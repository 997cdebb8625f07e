import { randomUUID } from 'node:crypto';
import { mkdir, statfs, unlink } from 'node:fs/promises';
import { assertOptionsObject } from '../core/factory-options';
import { DEFAULT_COMPACTION_JOB_TTL_MS } from '../core/defaults';
import { join, resolve } from 'node:path';
import {
  RESOURCE_META_KEY,
  type ListSessionsQuery,
  type MemoryBackend,
} from '../core/backend.interface';
import { eraseListedSessions } from '../core/resource-erase';
import { deleteIfUnchanged } from '../core/session-delete';
import { assertResource } from '../core/session-list';
import { BackendUnavailableError } from '../core/errors';
import { legacySummaryPolicy, type SummarizationOptions } from '../core/legacy-summarization';
import { assertSessionId } from '../core/session-id';
import { writeFileAtomic } from './atomic-write';
import { DEFAULT_JSONFILE_MIN_FREE_MB } from './json-file.defaults';
import { JsonFileMemory } from './json-file.store';
import { SessionFiles, type SessionFilesOptions } from './session-files';
import { inspectSessionFile } from './session-file';
import { listSessionFiles, removeLeftovers } from './session-folder';
import { SessionIndex } from './session-index';
import type { CheckpointStorage } from '../core/checkpoint-storage.interface';
import { removingThreads } from '../core/thread-cleanup';
import { JsonFileCheckpointStorage } from './json-file-checkpoint.storage';
import { asFileStoreErrors, JSON_FILE_STORE } from './write-all';
import {
  JSON_FILE_JOBS_FOLDER,
  JsonFileCompactionJobStore,
} from './json-file-compaction-job.store';

/** Options of `jsonFileBackend` (a folder of session files). */
export interface JsonFileBackendOptions extends SessionFilesOptions {
  /** The folder holding one `<id>.json` file per session; created by the first write (or `check`). */
  dir: string;
  /** Drop the messages a snapshot covers. Default false. */
  pruneCompacted?: boolean;
  /** @deprecated see `JsonFileMemoryOptions.summarization`. */
  summarization?: SummarizationOptions;
  /** Clock for `updatedAt` and snapshot times; tests inject one. */
  now?: () => Date;
  /**
   * Free bytes the folder's filesystem must have for `check()` (readiness) to pass: below it the
   * backend reports down before saves start failing with `StorageFullError`. 0 turns the floor
   * off. Default {@link DEFAULT_MIN_FREE_BYTES}.
   */
  minFreeBytes?: number;
  /**
   * Read the folder without writing to it: no session index is kept (`list` walks the folder each
   * time) and nothing a killed process left is cleaned up, so the folder (say, one of Phero's)
   * stays exactly as it was. For reading, as `agent-memory export` does; `delete` and `erase`
   * refuse, and the sessions' own writes must not be called. Default false.
   */
  readOnly?: boolean;
}

/** The default `minFreeBytes`: {@link DEFAULT_JSONFILE_MIN_FREE_MB} MiB. */
const DEFAULT_MIN_FREE_BYTES = DEFAULT_JSONFILE_MIN_FREE_MB * 1024 * 1024;

/** The JSON-file backend: the port plus the folder it keeps its files in. */
export interface JsonFileBackend extends MemoryBackend {
  readonly kind: 'jsonfile';
  /** The absolute folder of the session files (LangGraph threads are under `.langgraph/` in it). */
  readonly dir: string;
  /** The LangGraph checkpoints of its threads (`@agent-memory/memory/langgraph`), in `.langgraph/`. */
  readonly checkpointStorage: CheckpointStorage;
}

/**
 * Sessions as files (erasing a resource removes its sessions' compaction jobs from
 * `<dir>/.compaction-jobs` too): session `id` lives in `<dir>/<id>.json` (with its log next to it once it is
 * in log form), so a Phero file dropped there is a session. Each `open` returns a
 * {@link JsonFileMemory} over that file; all of them share one cache of parsed sessions and one
 * write queue per session.
 *
 * `list` takes the sessions newest first from the folder's session index (`_index`: the files'
 * modification times as every writing process notes them, see `SessionIndex`; no `stat` of every
 * file) and reads only the sessions of the page it returns; with `search`, it reads sessions
 * newest first until the page is full. Files whose name is not a valid session id, and files that do not decode, are left out
 * of the list, never deleted or changed; `inspect` on a corrupt one throws `CorruptSessionError`,
 * and `delete` removes it. The first `open` (or `list`) removes temp files and locks left by a
 * process that was killed, so the first write after a crash does not wait.
 *
 * `check()` (what readiness calls) fails, naming why, when the folder cannot take a write: it
 * cannot be created or written (a read-only mount, missing rights) or its filesystem has less
 * than `minFreeBytes` free.
 * @throws RangeError when `minFreeBytes` is not a whole number of at least 0.
 */
export function jsonFileBackend(options: JsonFileBackendOptions): JsonFileBackend {
  assertOptionsObject('jsonFileBackend', options);
  if (typeof options.dir !== 'string' || options.dir === '') {
    throw new TypeError('jsonFileBackend needs a "dir" to keep the session files in');
  }
  const dir = resolve(options.dir);
  const minFreeBytes = options.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES;
  if (!Number.isSafeInteger(minFreeBytes) || minFreeBytes < 0) {
    throw new RangeError(`minFreeBytes must be a whole number of at least 0, got ${minFreeBytes}`);
  }
  const files = new SessionFiles(options, { keepAppendHandles: true });
  const summaryPolicy = legacySummaryPolicy(options.summarization);
  const readOnly = options.readOnly ?? false;
  const index = new SessionIndex(dir, { readOnly });
  const pathOf = (sessionId: string) => join(dir, `${sessionId}.json`);
  let tidied: Promise<void> | null = null;
  const tidy = () =>
    (tidied ??= readOnly ? Promise.resolve() : removeLeftovers(dir).catch(() => undefined));
  const refuseWrite = (operation: string) => {
    if (readOnly) {
      throw new TypeError(`jsonFileBackend: ${operation} on a backend opened with readOnly`);
    }
  };
  const open = async (sessionId: string) => {
    await tidy();
    return JsonFileMemory.open(pathOf(sessionId), {
      sessionId,
      pruneCompacted: options.pruneCompacted,
      summaryPolicy,
      now: options.now,
      sessionFiles: files,
    });
  };
  const list = async (q: ListSessionsQuery) => {
    await tidy();
    return asFileStoreErrors('list', null, () =>
      listSessionFiles(index, (id) => inspectSessionFile(id, pathOf(id)), q),
    );
  };

  const checkpointStorage = new JsonFileCheckpointStorage(dir);
  return removingThreads<JsonFileBackend>({
    kind: 'jsonfile',
    dir,
    checkpointStorage,
    async open(sessionId) {
      assertSessionId(sessionId);
      return open(sessionId);
    },
    list,
    async erase(q) {
      assertResource(q?.resource);
      refuseWrite('erase');
      const { resource } = q;
      const erased = await eraseListedSessions(list, resource, async (id) =>
        (await open(id)).eraseIf((meta) => meta[RESOURCE_META_KEY] === resource),
      );
      // Their compaction jobs go too: a job's result holds the summary it wrote.
      await new JsonFileCompactionJobStore({
        dir: join(dir, JSON_FILE_JOBS_FOLDER),
        ttlMs: DEFAULT_COMPACTION_JOB_TTL_MS,
      }).deleteForSessions(erased.sessionIds);
      return erased;
    },
    async inspect(sessionId) {
      assertSessionId(sessionId);
      return asFileStoreErrors('inspect', sessionId, () =>
        inspectSessionFile(sessionId, pathOf(sessionId)),
      );
    },
    async delete(sessionId, opts) {
      assertSessionId(sessionId);
      refuseWrite('delete');
      if (opts?.ifUnchanged) {
        return deleteIfUnchanged(sessionId, opts.ifUnchanged, async (check) =>
          (await open(sessionId)).eraseIf(check),
        );
      }
      await (await open(sessionId)).clear();
    },
    async check() {
      await checkWritable(dir, minFreeBytes);
    },
    async close() {
      files.close();
    },
  });
}

/**
 * Whether `dir` can take a write: it exists (or is made), a probe file can be written and removed
 * in it, and its filesystem has at least `minFreeBytes` free.
 * @throws BackendUnavailableError naming why not.
 */
async function checkWritable(dir: string, minFreeBytes: number): Promise<void> {
  const operation = `write check of folder "${dir}"`;
  const unavailable = (reason: string, cause?: unknown) =>
    new BackendUnavailableError(
      JSON_FILE_STORE,
      operation,
      null,
      Object.assign(new Error(reason), { cause }),
    );
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw unavailable(`the folder cannot be created (${codeOf(error)})`, error);
  }
  if (minFreeBytes > 0) {
    const fs = await statfs(dir);
    // What an unprivileged process may still use (root may use the reserved blocks too).
    const free = fs.bavail * fs.bsize;
    if (free < minFreeBytes) {
      throw unavailable(
        `its filesystem has ${free} bytes free, under the floor of ${minFreeBytes} bytes (minFreeBytes)`,
      );
    }
  }
  const probe = join(dir, `.check-${randomUUID()}.probe`);
  try {
    await writeFileAtomic(probe, 'probe');
  } catch (error) {
    throw unavailable(`the folder is not writable (${codeOf(error)})`, error);
  }
  await unlink(probe).catch(() => undefined);
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | null)?.code ?? String(error);
}
