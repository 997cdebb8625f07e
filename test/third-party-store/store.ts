/**
 * A store written outside the library, as a third party would write one: it imports only the
 * public packages (`@agent-memory/memory` for the types and the in-process store it keeps its
 * sessions in, `@agent-memory/conformance` for the initializer's type), and its default export is
 * the initializer `agent-memory-conformance ./store.ts` runs.
 */
import type { MemoryBackendInitializer } from '@agent-memory/conformance';
import { simpleBackend, type MemoryBackend } from '@agent-memory/memory';

/** The backend: its own `kind`, every call answered by an in-process store of its own. */
export function thirdPartyBackend(options: { pruneCompacted?: boolean } = {}): MemoryBackend {
  const sessions = simpleBackend({ capacity: 1000, ...options });
  return {
    // The library's kinds are a closed list until stores describe themselves.
    kind: 'third-party' as MemoryBackend['kind'],
    open: (sessionId) => sessions.open(sessionId),
    list: (query) => sessions.list(query),
    erase: (query) => sessions.erase(query),
    inspect: (sessionId) => sessions.inspect(sessionId),
    delete: (sessionId, opts) => sessions.delete(sessionId, opts),
    check: () => sessions.check(),
    close: () => sessions.close(),
  };
}

const initializer: MemoryBackendInitializer = {
  name: 'third-party test store',
  createBackend: (options) => thirdPartyBackend({ pruneCompacted: options?.pruneCompacted }),
  capabilities: { pruneCompactedOption: true },
};

export default initializer;
