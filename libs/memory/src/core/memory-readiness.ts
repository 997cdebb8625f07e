import type { BackendKind, MemoryBackend } from './backend.interface';
import { DEFAULT_HEALTH_TIMEOUT_MS } from './defaults';
import { MemoryError } from './errors';
import { withTimeout } from './timeout';

/** The readiness probe did not answer within its time limit. */
export class HealthTimeoutError extends MemoryError {
  readonly code = 'HEALTH_TIMEOUT';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} did not answer within ${timeoutMs} ms`);
  }
}

/** What {@link checkMemoryReadiness} found. */
export interface MemoryReadiness {
  /** True when the backend can serve reads and writes now. */
  ready: boolean;
  kind: BackendKind;
  /**
   * What the probe learned, for a health response: PostgreSQL `table` and `migrations`
   * (`applied` or `pending`); NATS `server`, `bucket`, `values`, `bytes`, `maxPayload`,
   * `maxValueSize`. Empty for the other kinds.
   */
  details: Record<string, unknown>;
  /**
   * What must exist before the store can serve (PostgreSQL: `table <name>`, `column <t>.<c>`,
   * `trigger <name>`, `procedure <name>_save_group`); empty when ready or when nothing was found missing.
   */
  missing: string[];
  /** Why the backend is not ready; absent when it is. May name hosts and ports. */
  reason?: string;
}

/** Options of {@link checkMemoryReadiness}. */
export interface MemoryReadinessOptions {
  /** Not ready when the backend has not answered within this (ms). Default 3000. */
  timeoutMs?: number;
}

/**
 * Whether `backend` can serve now, the same way for every kind: PostgreSQL reachable and migrated
 * (the tables, columns, triggers and save procedure exist, whoever ran the migrations), NATS
 * connected with its bucket bound, a JSON-file folder writable (`backend.check()`), and
 * `backend.check()` for any other. Never throws and never waits longer than `timeoutMs`. Used by
 * the admin server's `/health/ready`, the worker's heartbeat and `MemoryHealthModule`.
 */
export async function checkMemoryReadiness(
  backend: MemoryBackend,
  opts: MemoryReadinessOptions = {},
): Promise<MemoryReadiness> {
  const kind = backend.kind;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  const probe = PROBES[kind] ?? probeByCheck;
  try {
    return await withTimeout(
      Promise.resolve().then(() => probe(backend)),
      timeoutMs,
      () => new HealthTimeoutError(describe(backend), timeoutMs),
    );
  } catch (error) {
    return {
      ready: false,
      kind,
      details: detailsOnFailure(backend),
      missing: [],
      reason: error instanceof Error ? error.message : String(error),
    };
  }
}

type Probe = (backend: MemoryBackend) => Promise<MemoryReadiness>;

/** A PostgreSQL backend as far as readiness needs it (no import of the driver here). */
interface SchemaAware extends MemoryBackend {
  readonly tables: { table: string };
  schemaStatus(): Promise<{ ready: boolean; missing: string[] }>;
}

/** A NATS backend as far as readiness needs it. */
interface BucketAware extends MemoryBackend {
  readonly bucket: string;
  status(): Promise<object>;
}

const probeByCheck: Probe = async (backend) => {
  await backend.check();
  return { ready: true, kind: backend.kind, details: {}, missing: [] };
};

const probePostgres: Probe = async (backend) => {
  if (!isSchemaAware(backend)) return probeByCheck(backend);
  const table = backend.tables.table;
  await backend.check();
  const schema = await backend.schemaStatus();
  if (schema.ready) {
    return {
      ready: true,
      kind: 'postgres',
      details: { table, migrations: 'applied' },
      missing: [],
    };
  }
  return {
    ready: false,
    kind: 'postgres',
    details: { table, migrations: 'pending' },
    missing: schema.missing,
    reason:
      `the memory migrations of table "${table}" are not applied (missing: ` +
      `${schema.missing.join(', ')}): run "agent-memory migrate" (or the TypeORM migrations), or turn ensureSchema on`,
  };
};

const probeNats: Probe = async (backend) => {
  if (!isBucketAware(backend)) return probeByCheck(backend);
  const status = await backend.status();
  return { ready: true, kind: 'nats', details: { ...status }, missing: [] };
};

const PROBES: Partial<Record<BackendKind, Probe>> = {
  postgres: probePostgres,
  nats: probeNats,
};

function isSchemaAware(backend: MemoryBackend): backend is SchemaAware {
  return typeof (backend as Partial<SchemaAware>).schemaStatus === 'function';
}

function isBucketAware(backend: MemoryBackend): backend is BucketAware {
  return typeof (backend as Partial<BucketAware>).status === 'function';
}

function describe(backend: MemoryBackend): string {
  if (isSchemaAware(backend)) return `PostgreSQL (table "${backend.tables.table}")`;
  if (isBucketAware(backend)) return `NATS bucket "${backend.bucket}"`;
  return `the ${backend.kind} memory backend`;
}

function detailsOnFailure(backend: MemoryBackend): Record<string, unknown> {
  if (isSchemaAware(backend)) return { table: backend.tables.table };
  if (isBucketAware(backend)) return { bucket: backend.bucket };
  return {};
}
