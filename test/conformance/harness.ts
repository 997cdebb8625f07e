/**
 * How a backend plugs into the conformance suites: a harness makes fresh backends and says how to
 * destroy them; `useConformanceBackends` gives the suites those backends and registers the hooks
 * that destroy them after each test and the harness after all tests.
 */
import type { MemoryBackend, SessionStore, SummarizationOptions } from '@agent-memory/memory';

/** The backend options the suites vary. */
export interface BackendOptions {
  pruneCompacted?: boolean;
  /** The deprecated option, for legacy-summarization.conformance.ts. */
  summarization?: SummarizationOptions;
}

/** Which storage a backend opens, as JSON a replica or a child process opens again. */
export type BackendSpec =
  | { kind: 'postgres'; url: string; table: string; preparedStatements?: boolean }
  /**
   * `timeoutMs`: the backend's request timeout (a process that must fail fast when a server goes);
   * `writeBudgetMs`: how long one write keeps retrying.
   */
  | {
      kind: 'nats';
      servers: string | string[];
      bucket: string;
      timeoutMs?: number;
      writeBudgetMs?: number;
    }
  /** A folder of `<session>.json` files. */
  | { kind: 'jsonfile'; dir: string };

/** A backend a harness made, over storage no other test uses. */
export interface CreatedBackend {
  backend: MemoryBackend;
  /** Its storage, for `openBackend` in another process; absent for in-process stores. */
  spec?: BackendSpec;
  /**
   * Opens the same storage again as another replica would (its own connection or file handle).
   * Absent for in-process stores, whose replica is the backend itself.
   */
  reopen?(opts?: BackendOptions): Promise<MemoryBackend>;
  /** Closes the backend (and what `reopen` opened) and removes its storage where it can. */
  destroy(): Promise<void>;
}

export interface ConformanceHarness {
  /** A fresh backend over storage no other test uses. */
  create(opts?: BackendOptions): Promise<CreatedBackend>;
  /** The backend's default for `pruneCompacted` (true for NATS). */
  prunesByDefault?: boolean;
  /** Removes what the harness set up for all its backends (a schema, a folder, buckets). */
  destroy?(): Promise<void>;
}

/** What each capability suite uses: backends and sessions that are destroyed after each test. */
export interface ConformanceContext {
  prunesByDefault: boolean;
  backend(opts?: BackendOptions): Promise<MemoryBackend>;
  /** A second opener of `of`'s storage (`of` itself for in-process stores). */
  replica(of: MemoryBackend, opts?: BackendOptions): Promise<MemoryBackend>;
  /** A session id no other test uses. */
  newId(): string;
  /** A fresh backend and a session on it. */
  session(opts?: BackendOptions): Promise<{ b: MemoryBackend; id: string; s: SessionStore }>;
}

/**
 * Call once inside a `describe`: every backend made through the returned context is destroyed
 * after its test, and the harness after the last test. One harness per suite (`destroy` runs once).
 */
export function useConformanceBackends(
  harness: ConformanceHarness,
  idPrefix = 'conf',
): ConformanceContext {
  const created = new Map<MemoryBackend, CreatedBackend>();
  let counter = 0;

  afterEach(async () => {
    const all = [...created.values()];
    created.clear();
    await Promise.all(all.map((c) => c.destroy()));
  });
  afterAll(async () => {
    await harness.destroy?.();
  });

  async function backend(opts?: BackendOptions): Promise<MemoryBackend> {
    const made = await harness.create(opts);
    created.set(made.backend, made);
    return made.backend;
  }
  const newId = () => `${idPrefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;
  return {
    prunesByDefault: harness.prunesByDefault ?? false,
    backend,
    async replica(of, opts) {
      const reopen = created.get(of)?.reopen;
      return reopen ? reopen(opts) : of;
    },
    newId,
    async session(opts) {
      const b = await backend(opts);
      const id = newId();
      return { b, id, s: await b.open(id) };
    },
  };
}
