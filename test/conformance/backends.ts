/**
 * The backend factory of every store, for the conformance suites (`simpleHarness()`, …) and for
 * the store processes of the cross-process tests (`openBackend(spec)` in
 * `test/support/store-process.script.ts`): a `BackendSpec` names the storage, so another replica
 * or another OS process opens the same one.
 */
import { jsonFileBackend, simpleBackend, type MemoryBackend } from '@agent-memory/memory';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestBuckets } from '../support/nats';
import { TestSchemas } from '../support/postgres';
import { testNatsUrl } from '../support/services';
import type { BackendOptions, BackendSpec, ConformanceHarness, CreatedBackend } from './harness';

/** Backend options a process may add to its spec (a writer process keeps its pool small). */
export interface OpenOptions extends BackendOptions {
  poolSize?: number;
}

/** Opens the backend `spec` names: the one factory the suites and the store processes share. */
export async function openBackend(
  spec: BackendSpec,
  opts: OpenOptions = {},
): Promise<MemoryBackend> {
  switch (spec.kind) {
    case 'postgres': {
      const { postgresBackend } = await import('@agent-memory/memory/postgres');
      const { kind: _, ...options } = spec;
      return postgresBackend({ ...options, ...opts });
    }
    case 'nats': {
      const { natsBackend } = await import('@agent-memory/memory/nats');
      const { kind: _, ...options } = spec;
      const { poolSize: __, ...backendOptions } = opts;
      return natsBackend({ ...options, ...backendOptions });
    }
    case 'jsonfile': {
      const { poolSize: _, ...options } = opts;
      return jsonFileBackend({ dir: spec.dir, ...options });
    }
  }
}

/**
 * A harness over storage `nextSpec` hands out: each backend can be reopened by spec, and is
 * closed with its replicas after the test.
 */
function specHarness(
  nextSpec: () => BackendSpec,
  extra: Pick<ConformanceHarness, 'prunesByDefault' | 'destroy'> & {
    removeStorage?(spec: BackendSpec): void;
  },
): ConformanceHarness {
  return {
    prunesByDefault: extra.prunesByDefault,
    destroy: extra.destroy,
    async create(opts): Promise<CreatedBackend> {
      const spec = nextSpec();
      const backend = await openBackend(spec, opts);
      const replicas: MemoryBackend[] = [];
      return {
        backend,
        spec,
        async reopen(replicaOpts) {
          const replica = await openBackend(spec, replicaOpts);
          replicas.push(replica);
          return replica;
        },
        async destroy() {
          await Promise.all([backend, ...replicas].map((b) => b.close()));
          extra.removeStorage?.(spec);
        },
      };
    },
  };
}

/** The in-process store: no storage to remove, no second opener. */
export function simpleHarness(): ConformanceHarness {
  return {
    async create(opts) {
      const backend = simpleBackend({ capacity: 1000, ...opts });
      return { backend, destroy: () => backend.close() };
    },
  };
}

/** One folder per backend under a temporary root, each removed after its test. */
export function jsonFileHarness(): ConformanceHarness {
  const root = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-conf-'));
  let counter = 0;
  return specHarness(
    // A folder that does not exist yet: the first write creates it.
    () => ({ kind: 'jsonfile', dir: join(root, `backend-${++counter}`, 'sessions') }),
    {
      removeStorage: (spec) =>
        spec.kind === 'jsonfile' && rmSync(join(spec.dir, '..'), { recursive: true, force: true }),
      destroy: async () => rmSync(root, { recursive: true, force: true }),
    },
  );
}

/** One schema per backend, all dropped after the suite. */
export function postgresHarness(
  options: { preparedStatements?: boolean } = {},
): ConformanceHarness {
  const schemas = new TestSchemas('pgconf');
  return specHarness(
    () => ({ kind: 'postgres', url: schemas.url, table: schemas.nextTable(), ...options }),
    { destroy: () => schemas.cleanup() },
  );
}

/** One KV bucket per backend, all deleted after the suite. */
export function natsHarness(): ConformanceHarness {
  const buckets = new TestBuckets('conf');
  return specHarness(() => ({ kind: 'nats', servers: testNatsUrl(), bucket: buckets.next() }), {
    prunesByDefault: true,
    destroy: () => buckets.cleanup(),
  });
}
