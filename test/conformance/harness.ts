/**
 * The project's own tests that need a store's storage by hand (the keyed-save kill tests, the SDK
 * loops) take a harness: a fresh backend with its `BackendSpec`, a way to reopen it, and its
 * destruction. Built on the project's conformance initializers (`backends.ts`).
 */
import type { MemoryBackendInitializer } from '@agent-memory/conformance';
import type { MemoryBackend } from '@agent-memory/memory';
import {
  jsonFileInitializer,
  natsInitializer,
  postgresInitializer,
  simpleInitializer,
  type BackendOptions,
  type BackendSpec,
} from './backends';

/** A backend a harness made, over storage no other test uses. */
export interface CreatedBackend {
  backend: MemoryBackend;
  /** Its storage, for `openBackend` in another process; absent for in-process stores. */
  spec?: BackendSpec;
  /** Opens the same storage again as another replica would; absent for in-process stores. */
  reopen?(opts?: BackendOptions): Promise<MemoryBackend>;
  /** Closes the backend (and what `reopen` opened) and removes its storage where it can. */
  destroy(): Promise<void>;
}

export interface ConformanceHarness {
  /** A fresh backend over storage no other test uses. */
  create(opts?: BackendOptions): Promise<CreatedBackend>;
  /** Removes what the harness set up for all its backends (a schema, a folder, buckets). */
  destroy?(): Promise<void>;
}

/** The harness of a store's initializer. */
export function harnessOf(initializer: MemoryBackendInitializer<BackendSpec>): ConformanceHarness {
  const { storageOf, openStorage } = initializer;
  return {
    destroy: async () => initializer.afterAll?.(),
    async create(opts) {
      const backend = await initializer.createBackend(opts);
      const replicas: MemoryBackend[] = [];
      const spec = storageOf?.(backend);
      return {
        backend,
        spec,
        reopen:
          spec && openStorage
            ? async (replicaOpts) => {
                const replica = await openStorage(spec, replicaOpts);
                replicas.push(replica);
                return replica;
              }
            : undefined,
        async destroy() {
          await Promise.all(replicas.map((replica) => replica.close()));
          await (initializer.destroyBackend?.(backend) ?? backend.close());
        },
      };
    },
  };
}

export const simpleHarness = (): ConformanceHarness => harnessOf(simpleInitializer());
export const jsonFileHarness = (): ConformanceHarness => harnessOf(jsonFileInitializer());
export const postgresHarness = (options: { preparedStatements?: boolean } = {}) =>
  harnessOf(postgresInitializer(options));
export const natsHarness = (): ConformanceHarness => harnessOf(natsInitializer());
