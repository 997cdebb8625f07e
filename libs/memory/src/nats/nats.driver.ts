import type { MemoryBackend } from '../core/backend.interface';
import { DEFAULT_COMPACTION_JOB_TTL_MS } from '../core/defaults';
import {
  DEFAULT_NATS_BUCKET,
  DEFAULT_NATS_TIMEOUT_MS,
  DEFAULT_WRITE_BUDGET_MS,
} from './nats.defaults';
import type { MemoryDriver } from '../core/memory-driver';
import { loadOptionalModule } from '../core/optional-peer';
import type { RequiredSetting } from '../core/settings-reader';
import type { NatsBackend } from './nats.backend';

/** The packages the NATS store needs besides this one. */
export const NATS_PEERS = ['nats'] as const;

/** The NATS store's settings. */
export interface NatsSettings {
  /** `NATS_URL` (`--nats-url`): the server. */
  url: string;
  /** `MEMORY_NATS_BUCKET` (`--bucket`): the sessions' KV bucket. */
  bucket: string;
  /** `MEMORY_NATS_TIMEOUT_MS`: wait for one KV request. */
  timeoutMs: number;
  /** `MEMORY_NATS_WRITE_BUDGET_MS`: how long a save keeps retrying lost races. */
  writeBudgetMs: number;
}

const NATS_URL: RequiredSetting = {
  env: 'NATS_URL',
  flag: 'nats-url',
  what: 'NATS server',
  example: 'nats://host:4222',
};

const BUCKET_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * The NATS store (`natsBackend`): sessions in a JetStream KV bucket, and next to it the audit log
 * (the `AUDIT_<bucket>` stream), the compaction jobs (`<bucket>_jobs`) and the leases
 * (`<bucket>_leases`). Needs the package `nats`, loaded only by `create`.
 */
export const natsDriver: MemoryDriver<NatsBackend, NatsSettings> = {
  kind: 'nats',
  summary: 'a NATS JetStream KV bucket (needs nats)',
  durable: true,
  settings: [
    { env: 'NATS_URL', flag: 'nats-url', summary: 'the NATS server' },
    {
      env: 'MEMORY_NATS_BUCKET',
      flag: 'bucket',
      summary: 'the NATS KV bucket',
      default: DEFAULT_NATS_BUCKET,
    },
    {
      env: 'MEMORY_NATS_TIMEOUT_MS',
      summary: 'wait for one KV request (ms)',
      default: String(DEFAULT_NATS_TIMEOUT_MS),
    },
    {
      env: 'MEMORY_NATS_WRITE_BUDGET_MS',
      summary: 'how long a save keeps retrying lost races (ms)',
      default: String(DEFAULT_WRITE_BUDGET_MS),
    },
  ],
  readSettings: (reader) => {
    reader.require(NATS_URL, 'MEMORY_BACKEND=nats');
    return {
      url: reader.url('NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']) ?? '',
      bucket: reader.matching(
        'MEMORY_NATS_BUCKET',
        BUCKET_PATTERN,
        DEFAULT_NATS_BUCKET,
        'may hold only letters, digits, "_" and "-"',
      ),
      timeoutMs: reader.integer('MEMORY_NATS_TIMEOUT_MS', DEFAULT_NATS_TIMEOUT_MS, 100, 600000),
      writeBudgetMs: reader.integer(
        'MEMORY_NATS_WRITE_BUDGET_MS',
        DEFAULT_WRITE_BUDGET_MS,
        0,
        600000,
      ),
    };
  },
  describeSettings: (settings) => `the NATS bucket "${settings.bucket}"`,
  async create(settings, context = {}) {
    const { natsBackend } = await loadOptionalModule(
      'the nats store',
      NATS_PEERS,
      () => import('./nats.backend'),
    );
    return natsBackend({
      servers: settings.url,
      bucket: settings.bucket,
      timeoutMs: settings.timeoutMs,
      writeBudgetMs: settings.writeBudgetMs,
      ...context.options,
      observer: context.observer,
    });
  },
  owns: (backend: MemoryBackend) =>
    backend.kind === 'nats' && typeof (backend as Partial<NatsBackend>).status === 'function',
  describe: (backend) => `NATS bucket "${backend.bucket}"`,
  readiness: async (backend) => ({
    ready: true,
    kind: backend.kind,
    details: { ...(await backend.status()) },
    missing: [],
  }),
  readinessDetails: (backend) => ({ bucket: backend.bucket }),
  async auditLog(backend, { limits }) {
    const { natsAuditLog } = await import('./nats-audit.log');
    return natsAuditLog({ connection: backend.connection, bucket: backend.bucket, limits });
  },
  async compactionJobStore(backend, options = {}) {
    const { natsCompactionJobStore, natsJobsBucket } = await import('./nats-compaction-job.store');
    return natsCompactionJobStore({
      connection: backend.connection,
      bucket: natsJobsBucket(backend.bucket),
      ttlMs: options.ttlMs ?? DEFAULT_COMPACTION_JOB_TTL_MS,
    });
  },
  async leaseStore(backend) {
    const { natsLeaseStore, natsLeasesBucket } = await import('./nats-lease.store');
    return natsLeaseStore({
      connection: backend.connection,
      bucket: natsLeasesBucket(backend.bucket),
    });
  },
  storagePath: () => null,
  checkpoints: async (backend) => backend.checkpointStorage,
};
