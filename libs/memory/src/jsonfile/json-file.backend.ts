import { randomUUID } from 'node:crypto';
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { MemoryBackend, SessionInfo } from '../core/backend.interface';
import { CorruptSessionError } from '../core/errors';
import type { SummarizationOptions } from '../core/legacy-summarization';
import { assertSessionId } from '../core/session-id';
import { listByReadingEach } from '../core/session-list';
import { writeFileAtomic } from './atomic-write';
import { JsonFileMemory } from './json-file.store';

export interface JsonFileBackendOptions {
  /** The folder holding one `<id>.json` file per session; created by the first write (or `check`). */
  dir: string;
  /** Drop the messages a snapshot covers. Default false. */
  pruneCompacted?: boolean;
  /** @deprecated see `JsonFileMemoryOptions.summarization`. */
  summarization?: SummarizationOptions;
  /** Clock for `updatedAt` and snapshot times; tests inject one. */
  now?: () => Date;
}

/** How many session files `list` reads at once. */

/**
 * Sessions as files: session `id` lives in `<dir>/<id>.json`, so a Phero file dropped there is a
 * session. Each `open` returns a {@link JsonFileMemory} over that file.
 *
 * `list` reads every session file in the folder (fine for the thousands of sessions a local
 * folder holds; use Postgres for more). Files whose name is not a valid session id, and files that
 * do not decode, are left out of the list, never deleted or changed; `inspect` on a corrupt one
 * throws `CorruptSessionError`, and `delete` removes it.
 */
export function jsonFileBackend(options: JsonFileBackendOptions): MemoryBackend {
  if (typeof options.dir !== 'string' || options.dir === '') {
    throw new TypeError('jsonFileBackend needs a "dir" to keep the session files in');
  }
  const dir = resolve(options.dir);
  const pathOf = (sessionId: string) => join(dir, `${sessionId}.json`);
  const open = (sessionId: string) =>
    JsonFileMemory.open(pathOf(sessionId), {
      sessionId,
      pruneCompacted: options.pruneCompacted,
      summarization: options.summarization,
      now: options.now,
    });

  async function readListable(sessionId: string): Promise<SessionInfo | null> {
    try {
      return await JsonFileMemory.inspect(pathOf(sessionId));
    } catch (error) {
      if (error instanceof CorruptSessionError) return null;
      throw error;
    }
  }

  return {
    kind: 'jsonfile',
    async open(sessionId) {
      assertSessionId(sessionId);
      return open(sessionId);
    },
    async list(q) {
      const ids = (await sessionFileNames(dir)).map((name) => name.slice(0, -'.json'.length));
      return listByReadingEach(ids, readListable, q);
    },
    async inspect(sessionId) {
      assertSessionId(sessionId);
      return JsonFileMemory.inspect(pathOf(sessionId));
    },
    async delete(sessionId) {
      assertSessionId(sessionId);
      await (await open(sessionId)).clear();
    },
    async check() {
      await mkdir(dir, { recursive: true });
      const probe = join(dir, `.check-${randomUUID()}.probe`);
      await writeFileAtomic(probe, '');
      await unlink(probe);
    },
    async close() {},
  };
}

async function sessionFileNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
