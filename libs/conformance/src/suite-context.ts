/**
 * What each suite works with: the backends (`ConformanceBackends`), the runner's functions, the
 * store's capabilities and the way a test is skipped, visibly, for want of one.
 */
import type { MemoryBackend } from '@agent-memory/memory';
import type { ConformanceBackends } from './context';
import type {
  ConformanceBackendOptions,
  MemoryBackendCapabilities,
  MemoryBackendInitializer,
} from './initializer';
import type { TestApi } from './test-api';

/** A test's registration: `it`, or `it.skip` with the missing capability in its title. */
export type TestRegistration = (title: string, fn: () => Promise<void>, timeoutMs?: number) => void;

export interface ConformanceContext extends ConformanceBackends {
  t: TestApi;
  capabilities: Required<MemoryBackendCapabilities>;
  /** `it`, or a visible skip naming `capability` when `has` is false. */
  itWith(capability: string, has: boolean): TestRegistration;
  /** `it` for a test that needs backends with `pruneCompacted: prune`, skipped when the store cannot. */
  itPruning(prune: boolean): TestRegistration;
}

/** All capabilities, false unless the store says otherwise. */
export function capabilitiesOf(
  initializer: MemoryBackendInitializer,
): Required<MemoryBackendCapabilities> {
  return {
    crossProcess: false,
    pruneCompactedOption: false,
    prunesCompactedByDefault: false,
    consecutiveSaveCursors: false,
    ...initializer.capabilities,
  };
}

/** `it`, or `it.skip` with a title that says which capability the store lacks. */
export function registration(t: TestApi, capability: string, has: boolean): TestRegistration {
  if (has) return (title, fn, timeoutMs) => t.it(title, fn, timeoutMs);
  return (title, fn) => t.it.skip(`${title} [skipped: the store lacks ${capability}]`, fn);
}

/**
 * Registers, in the current `describe`, the hooks that destroy every backend made through the
 * returned context after its test, and run the initializer's `afterAll` after the last one.
 */
export function conformanceContext(
  t: TestApi,
  initializer: MemoryBackendInitializer,
  idPrefix = 'conf',
): ConformanceContext {
  const made = new Map<MemoryBackend, MemoryBackend[]>();
  const capabilities = capabilitiesOf(initializer);
  let counter = 0;

  t.afterEach(async () => {
    const all = [...made.entries()];
    made.clear();
    await Promise.all(
      all.map(async ([backend, replicas]) => {
        await Promise.all(replicas.map((replica) => replica.close()));
        await (initializer.destroyBackend ? initializer.destroyBackend(backend) : backend.close());
      }),
    );
  });
  t.afterAll(async () => initializer.afterAll?.());

  async function backend(opts?: ConformanceBackendOptions): Promise<MemoryBackend> {
    const created = await initializer.createBackend(opts);
    made.set(created, []);
    return created;
  }
  const newId = () => `${idPrefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;
  const itWith = (capability: string, has: boolean) => registration(t, capability, has);
  return {
    t,
    name: initializer.name,
    capabilities,
    backend,
    async replica(of, opts) {
      const replicas = made.get(of);
      if (!replicas || !initializer.storageOf || !initializer.openStorage) return of;
      const replica = await initializer.openStorage(initializer.storageOf(of), opts);
      replicas.push(replica);
      return replica;
    },
    newId,
    async session(opts) {
      const b = await backend(opts);
      const id = newId();
      return { b, id, s: await b.open(id) };
    },
    itWith,
    itPruning: (prune) =>
      itWith(
        `pruneCompactedOption (needs pruneCompacted: ${prune})`,
        capabilities.pruneCompactedOption || capabilities.prunesCompactedByDefault === prune,
      ),
  };
}
