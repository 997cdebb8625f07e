/**
 * A store written outside the library, as a third party would write one: it imports only the
 * public packages (`@agent-memory/memory` for the types and the JSON-file store it keeps its
 * sessions with, `@agent-memory/conformance` for the initializer's type), and its default export
 * is the initializer `agent-memory-conformance ./store.ts` runs. Its storage is a folder, so other
 * processes can open it: the cross-process tests run too.
 */
import type { MemoryBackendInitializer } from '@agent-memory/conformance';
import { jsonFileBackend, type MemoryBackend } from '@agent-memory/memory';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where a backend keeps its sessions. */
export interface StoreFolder {
  dir: string;
}

/** The backend over `folder`: its own `kind`, every call answered by a JSON-file store. */
export function thirdPartyBackend(
  folder: StoreFolder,
  options: { pruneCompacted?: boolean } = {},
): MemoryBackend {
  const sessions = jsonFileBackend({ dir: folder.dir, pruneCompacted: options.pruneCompacted });
  return {
    kind: 'third-party',
    open: (sessionId) => sessions.open(sessionId),
    list: (query) => sessions.list(query),
    erase: (query) => sessions.erase(query),
    inspect: (sessionId) => sessions.inspect(sessionId),
    delete: (sessionId, opts) => sessions.delete(sessionId, opts),
    check: () => sessions.check(),
    close: () => sessions.close(),
  };
}

const folders = new WeakMap<MemoryBackend, StoreFolder>();

const initializer: MemoryBackendInitializer<StoreFolder> = {
  name: 'third-party test store',
  createBackend(options) {
    const folder = { dir: mkdtempSync(join(tmpdir(), 'third-party-store-')) };
    const backend = thirdPartyBackend(folder, options);
    folders.set(backend, folder);
    return backend;
  },
  async destroyBackend(backend) {
    await backend.close();
    rmSync(folders.get(backend)!.dir, { recursive: true, force: true });
  },
  storageOf: (backend) => folders.get(backend)!,
  openStorage: (folder, options) => thirdPartyBackend(folder, options),
  capabilities: { crossProcess: true, pruneCompactedOption: true },
};

export default initializer;
