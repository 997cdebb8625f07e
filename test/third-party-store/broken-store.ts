/**
 * The third-party test store with one deliberate bug: `retrieve` returns the context newest
 * first. The conformance command must fail on it and name the tests that caught it.
 */
import type { MemoryBackendInitializer } from '@agent-memory/conformance';
import type { MemoryBackend, SessionStore } from '@agent-memory/memory';
import store from './store';

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

/** The store's own backend behind each broken one, for `destroyBackend`. */
const inner = new WeakMap<MemoryBackend, MemoryBackend>();

const initializer: MemoryBackendInitializer = {
  name: 'broken third-party test store',
  async createBackend(options) {
    const backend = await store.createBackend(options);
    const broken = { ...backend, open: async (id: string) => reversing(await backend.open(id)) };
    inner.set(broken, backend);
    return broken;
  },
  destroyBackend: (backend) => store.destroyBackend!(inner.get(backend)!),
  capabilities: { pruneCompactedOption: true },
};

export default initializer;
