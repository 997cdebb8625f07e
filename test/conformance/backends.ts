/**
 * The project's four stores as conformance initializers (`simpleInitializer()`, …), and the one
 * factory that opens a store's storage by its `BackendSpec`: the suites' replicas, the store
 * processes of the cross-process tests (`test/support/store-process.script.ts`) and the package's
 * child processes (through `storeOpener`) all open storage with `openBackend`.
 */
import type {
  ConformanceBackendOptions,
  MemoryBackendCapabilities,
  MemoryBackendInitializer,
} from '@agent-memory/conformance';
import {
  jsonFileBackend,
  simpleBackend,
  type MemoryBackend,
  type SummarizationOptions,
} from '@agent-memory/memory';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestBuckets } from '../support/nats';
import { TestSchemas } from '../support/postgres';
import { testNatsUrl } from '../support/services';

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

/** The options the project's suites vary: the package's, and the deprecated one of its own. */
export interface BackendOptions extends ConformanceBackendOptions {
  /** The deprecated option, for legacy-summarization.conformance.ts. */
  summarization?: SummarizationOptions;
}

/** Backend options a process may add (a writer process keeps its pool small). */
export interface OpenOptions extends BackendOptions {
  poolSize?: number;
}

/** Opens the backend `spec` names: the one factory the suites and the store processes share. */
export async function openBackend(
  spec: BackendSpec,
  opts: OpenOptions = {},
): Promise<MemoryBackend> {
  // Many child processes open the storage at once: each keeps a small pool.
  const { childProcess, poolSize = childProcess ? 2 : undefined, ...common } = opts;
  switch (spec.kind) {
    case 'postgres': {
      const { postgresBackend } = await import('@agent-memory/memory/postgres');
      const { kind: _, ...options } = spec;
      return postgresBackend({ ...options, ...common, ...(poolSize ? { poolSize } : {}) });
    }
    case 'nats': {
      const { natsBackend } = await import('@agent-memory/memory/nats');
      const { kind: _, ...options } = spec;
      return natsBackend({ ...options, ...common });
    }
    case 'jsonfile':
      return jsonFileBackend({ dir: spec.dir, ...common });
  }
}

/** What a child process of the package's cross-process tests loads (`processModule`). */
export const storeOpener: Pick<MemoryBackendInitializer<BackendSpec>, 'openStorage'> = {
  openStorage: (spec, opts) => openBackend(spec, opts),
};

/** A store over storage `nextSpec` hands out, each backend reopened and destroyed by its spec. */
function specInitializer(
  name: string,
  nextSpec: () => BackendSpec,
  extra: {
    capabilities: MemoryBackendCapabilities;
    removeStorage?(spec: BackendSpec): void;
    afterAll(): Promise<void>;
  },
): MemoryBackendInitializer<BackendSpec> {
  const specs = new WeakMap<MemoryBackend, BackendSpec>();
  const specOf = (backend: MemoryBackend): BackendSpec => {
    const spec = specs.get(backend);
    if (!spec) throw new Error(`this ${name} backend was not made by its initializer`);
    return spec;
  };
  return {
    name,
    capabilities: { pruneCompactedOption: true, ...extra.capabilities },
    async createBackend(opts?: BackendOptions) {
      const spec = nextSpec();
      const backend = await openBackend(spec, opts);
      specs.set(backend, spec);
      return backend;
    },
    async destroyBackend(backend) {
      await backend.close();
      extra.removeStorage?.(specOf(backend));
    },
    storageOf: specOf,
    openStorage: (spec, opts) => openBackend(spec, opts),
    processModule: { path: __filename, exportName: 'storeOpener' },
    afterAll: extra.afterAll,
  };
}

/** The in-process store: no storage to remove, no second opener. */
export function simpleInitializer(): MemoryBackendInitializer {
  return {
    name: 'simple',
    capabilities: { pruneCompactedOption: true },
    createBackend: (opts?: BackendOptions) =>
      simpleBackend({ capacity: 1000, ...withoutChildProcess(opts) }),
  };
}

/** One folder per backend under a temporary root, each removed after its test. */
export function jsonFileInitializer(): MemoryBackendInitializer<BackendSpec> {
  const root = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-conf-'));
  let counter = 0;
  return specInitializer(
    'jsonfile',
    // A folder that does not exist yet: the first write creates it.
    () => ({ kind: 'jsonfile', dir: join(root, `backend-${++counter}`, 'sessions') }),
    {
      // Every save locks the session's file, so processes sharing the folder are safe.
      capabilities: { crossProcess: true },
      removeStorage: (spec) =>
        spec.kind === 'jsonfile' && rmSync(join(spec.dir, '..'), { recursive: true, force: true }),
      afterAll: async () => rmSync(root, { recursive: true, force: true }),
    },
  );
}

/** One schema per backend, all dropped after the suite. */
export function postgresInitializer(
  options: { preparedStatements?: boolean; name?: string } = {},
): MemoryBackendInitializer<BackendSpec> {
  const { name = 'postgres', ...spec } = options;
  const schemas = new TestSchemas('pgconf');
  return specInitializer(
    name,
    () => ({ kind: 'postgres', url: schemas.url, table: schemas.nextTable(), ...spec }),
    {
      capabilities: { crossProcess: true, consecutiveSaveCursors: true },
      afterAll: () => schemas.cleanup(),
    },
  );
}

/** One KV bucket per backend, all deleted after the suite. */
export function natsInitializer(): MemoryBackendInitializer<BackendSpec> {
  const buckets = new TestBuckets('conf');
  return specInitializer(
    'nats',
    () => ({ kind: 'nats', servers: testNatsUrl(), bucket: buckets.next() }),
    {
      capabilities: { crossProcess: true, prunesCompactedByDefault: true },
      afterAll: () => buckets.cleanup(),
    },
  );
}

function withoutChildProcess(opts: BackendOptions = {}): Omit<BackendOptions, 'childProcess'> {
  const { childProcess: _, ...rest } = opts;
  return rest;
}
