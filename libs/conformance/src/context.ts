/**
 * What each suite works with: backends made through the initializer, destroyed after their test
 * (their replicas closed first), and the initializer's `afterAll` after the last test; plus the
 * runner's functions and the way a test is skipped for want of a capability.
 */
import type { MemoryBackend, SessionStore } from '@agent-memory/memory';
import type {
  ConformanceBackendOptions,
  MemoryBackendCapabilities,
  MemoryBackendInitializer,
} from './initializer';
import { resolveRunner, type ConformanceRunOptions, type TestApi } from './runner';

/** A test's registration: `it`, or `it.skip` with the missing capability in its title. */
export type TestRegistration = (title: string, fn: () => Promise<void>, timeoutMs?: number) => void;

export interface ConformanceContext {
  t: TestApi;
  name: string;
  capabilities: Required<MemoryBackendCapabilities>;
  backend(opts?: ConformanceBackendOptions): Promise<MemoryBackend>;
  /** A second opener of `of`'s storage (`of` itself for a store without `openStorage`). */
  replica(of: MemoryBackend, opts?: ConformanceBackendOptions): Promise<MemoryBackend>;
  /** A session id no other test uses. */
  newId(): string;
  /** A fresh backend and a session on it. */
  session(
    opts?: ConformanceBackendOptions,
  ): Promise<{ b: MemoryBackend; id: string; s: SessionStore }>;
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
 * For a store's own extra tests: call once inside a `describe`; every backend made through the
 * returned context is destroyed after its test (replicas closed first), and the initializer's
 * `afterAll` runs after the last test. Session ids start with `idPrefix` (default `conf`).
 * @throws MissingTestRunnerError as `describeMemoryBackendConformance` does.
 */
export function useConformanceBackends(
  initializer: MemoryBackendInitializer,
  options: ConformanceRunOptions & { idPrefix?: string } = {},
): ConformanceContext {
  return conformanceContext(resolveRunner(options.runner), initializer, options.idPrefix);
}

/** `useConformanceBackends` with the runner resolved. */
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
