import { randomUUID } from 'node:crypto';
import { assertOptionsObject } from '../core/factory-options';
import { mkdir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { MemoryBackend } from '../core/backend.interface';
import type { SummarizationOptions } from '../core/legacy-summarization';
import { assertSessionId } from '../core/session-id';
import { writeFileAtomic } from './atomic-write';
import { JsonFileMemory } from './json-file.store';
import { SessionFiles, type SessionFilesOptions } from './session-files';
import { inspectSessionFile } from './session-file';
import { listSessionFiles, removeLeftovers } from './session-folder';
import { SessionIndex } from './session-index';

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
}

/**
 * Sessions as files: session `id` lives in `<dir>/<id>.json` (with its log next to it once it is
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
 */
export function jsonFileBackend(options: JsonFileBackendOptions): MemoryBackend {
  assertOptionsObject('jsonFileBackend', options);
  if (typeof options.dir !== 'string' || options.dir === '') {
    throw new TypeError('jsonFileBackend needs a "dir" to keep the session files in');
  }
  const dir = resolve(options.dir);
  const files = new SessionFiles(options);
  const index = new SessionIndex(dir);
  const pathOf = (sessionId: string) => join(dir, `${sessionId}.json`);
  let tidied: Promise<void> | null = null;
  const tidy = () => (tidied ??= removeLeftovers(dir).catch(() => undefined));
  const open = async (sessionId: string) => {
    await tidy();
    return JsonFileMemory.open(pathOf(sessionId), {
      sessionId,
      pruneCompacted: options.pruneCompacted,
      summarization: options.summarization,
      now: options.now,
      sessionFiles: files,
    });
  };

  return {
    kind: 'jsonfile',
    async open(sessionId) {
      assertSessionId(sessionId);
      return open(sessionId);
    },
    async list(q) {
      await tidy();
      return listSessionFiles(index, (id) => inspectSessionFile(id, pathOf(id)), q);
    },
    async inspect(sessionId) {
      assertSessionId(sessionId);
      return inspectSessionFile(sessionId, pathOf(sessionId));
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
