/**
 * The third-party test store with one deliberate bug: `retrieve` returns the context newest
 * first. The conformance command must fail on it and name the tests that caught it.
 */
import type { MemoryBackendInitializer } from '@agent-memory/conformance';
import type { MemoryBackend, SessionStore } from '@agent-memory/memory';
import { thirdPartyBackend } from './store';

/** `session` with `retrieve` answering in reverse order. */
function reversing(session: SessionStore): SessionStore {
  return new Proxy(session, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'retrieve') {
        return async (...args: Parameters<SessionStore['retrieve']>) =>
          (await target.retrieve(...args)).reverse();
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const initializer: MemoryBackendInitializer = {
  name: 'broken third-party test store',
  createBackend(options): MemoryBackend {
    const backend = thirdPartyBackend({ pruneCompacted: options?.pruneCompacted });
    return { ...backend, open: async (sessionId) => reversing(await backend.open(sessionId)) };
  },
  capabilities: { pruneCompactedOption: true },
};

export default initializer;
