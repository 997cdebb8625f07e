import {
  DEFAULT_COMPACTION_KEEP_RECENT,
  DEFAULT_COMPACTION_QUEUE,
  DEFAULT_COMPACTION_SHUTDOWN_GRACE_MS,
  DEFAULT_COMPACTION_SUBJECT,
  DEFAULT_COMPACTION_THRESHOLD_TOKENS,
  DEFAULT_MEMORY_BACKEND,
  DEFAULT_MEMORY_DIR,
  DEFAULT_NATS_BUCKET,
  DEFAULT_NATS_TIMEOUT_MS,
  DEFAULT_WRITE_BUDGET_MS,
  type BackendKind,
} from '@agent-memory/memory';
import { ConfigValidationError } from './config-validation.error';
import { readRecallConfig, RECALL_ENV_VARS, type RecallConfig } from './recall-config';

/** The memory settings both apps (admin server and compaction worker) read from the environment. */
export interface MemoryConfig {
  /** `MEMORY_BACKEND`: simple, jsonfile, postgres or nats. Default jsonfile. */
  backend: BackendKind;
  /** `MEMORY_DIR`: folder of the jsonfile backend's session files. Default `./data/sessions`. */
  memoryDir: string;
  /**
   * `MEMORY_JSONFILE_MIN_FREE_MB`: free MiB the jsonfile backend's filesystem must keep for
   * readiness to pass (0 turns the floor off). Default 16.
   */
  jsonFileMinFreeMb: number;
  /** `MEMORY_SIMPLE_CAPACITY`: messages kept per session by the simple backend. Default 10000. */
  simpleCapacity: number;
  /** `DATABASE_URL`: required with the postgres backend. */
  databaseUrl: string | null;
  /** `MEMORY_PG_TABLE`: the messages table, `table` or `schema.table`. Default the backend's own. */
  pgTable: string | null;
  /**
   * `MEMORY_PG_ENSURE_SCHEMA`: `true` (default) migrates the tables at start-up; `false` leaves
   * that to the migrate command (`node dist/apps/api/src/migrate.js`, the Kubernetes Job).
   */
  pgEnsureSchema: boolean;
  /** `NATS_URL`: required with the nats backend, with `COMPACTION_MODE=nats`, and by the worker. */
  natsUrl: string | null;
  /** `MEMORY_NATS_BUCKET`: the KV bucket. Default `agent_memory`. */
  natsBucket: string;
  /** `MEMORY_NATS_TIMEOUT_MS`: wait for one KV request. Default 5000. */
  natsTimeoutMs: number;
  /**
   * `MEMORY_NATS_WRITE_BUDGET_MS`: how long a save keeps retrying lost races and requests the
   * cluster did not answer (a stream leader election) before it fails. Default 10000.
   */
  natsWriteBudgetMs: number;
  /** `COMPACT_AT_TOKENS`: context size in tokens that triggers compaction. Default 150000. */
  compactAtTokens: number;
  /** `COMPACT_KEEP_RECENT`: messages a compaction keeps verbatim. Default 20. */
  compactKeepRecent: number;
  /** `COMPACTION_MODE`: inline (in the server) or nats (on `apps/worker`). Default inline. */
  compactionMode: 'inline' | 'nats';
  /** `COMPACTION_NATS_SUBJECT`: subject of the checks. Default `agent-memory.compaction.check`. */
  compactionSubject: string;
  /** `COMPACTION_NATS_QUEUE`: the workers' queue group. Default `agent-memory-compaction`. */
  compactionQueue: string;
  /** `COMPACTION_SHUTDOWN_GRACE_MS`: on shutdown, how long running compactions may finish before they are aborted. Default 10000. */
  compactionShutdownGraceMs: number;
  /** `LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`: the summariser's LLM; null uses the offline one. */
  llm: { baseUrl: string; apiKey: string | null; model: string } | null;
  /** `MEMORY_RECALL_*`: semantic recall (see {@link RecallConfig}); null (default) is off. */
  recall: RecallConfig | null;
}

/** Every environment variable {@link readMemoryConfig} reads. */
export const MEMORY_ENV_VARS = [
  'MEMORY_BACKEND',
  'MEMORY_DIR',
  'MEMORY_JSONFILE_MIN_FREE_MB',
  'MEMORY_SIMPLE_CAPACITY',
  'DATABASE_URL',
  'MEMORY_PG_TABLE',
  'MEMORY_PG_ENSURE_SCHEMA',
  'NATS_URL',
  'MEMORY_NATS_BUCKET',
  'MEMORY_NATS_TIMEOUT_MS',
  'MEMORY_NATS_WRITE_BUDGET_MS',
  'COMPACT_AT_TOKENS',
  'COMPACT_KEEP_RECENT',
  'COMPACTION_MODE',
  'COMPACTION_NATS_SUBJECT',
  'COMPACTION_NATS_QUEUE',
  'COMPACTION_SHUTDOWN_GRACE_MS',
  'LLM_BASE_URL',
  'LLM_API_KEY',
  'LLM_MODEL',
  ...RECALL_ENV_VARS,
] as const;

type Env = Record<string, string | undefined>;

const BACKENDS: readonly BackendKind[] = ['simple', 'jsonfile', 'postgres', 'nats'];
const MODES = ['inline', 'nats'] as const;
const NATS_BUCKET_PATTERN = /^[A-Za-z0-9_-]+$/;
const NATS_SUBJECT_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const NATS_QUEUE_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** Reads the variables of one environment; empty values count as unset. */
export class EnvReader {
  constructor(
    private readonly env: Env,
    /** One line per bad variable is added here. */
    readonly problems: string[] = [],
  ) {}

  string(name: string): string | null {
    const value = this.env[name]?.trim();
    return value ? value : null;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.string(name);
    if (value === null) return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name}=${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
    return fallback;
  }

  integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.string(name);
    if (value === null) return fallback;
    const parsed = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(
        `${name}=${JSON.stringify(value)} must be a whole number from ${min} to ${max}`,
      );
      return fallback;
    }
    return parsed;
  }

  url(name: string, protocols: string[]): string | null {
    const value = this.string(name);
    if (value === null) return null;
    try {
      if (protocols.includes(new URL(value).protocol)) return value;
    } catch {
      // reported below
    }
    this.problems.push(
      `${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    );
    return null;
  }

  matching(name: string, pattern: RegExp, fallback: string, what: string): string {
    const value = this.string(name) ?? fallback;
    if (!pattern.test(value)) this.problems.push(`${name}=${JSON.stringify(value)} ${what}`);
    return value;
  }
}

/**
 * Reads the memory settings (see {@link MemoryConfig} for names and defaults), adding one line per
 * bad variable to `reader.problems` (so a caller can check its own variables too and report all
 * at once). Use {@link parseMemoryConfig} to throw instead.
 */
export function readMemoryConfig(
  reader: EnvReader,
  opts: { requireNats?: boolean } = {},
): MemoryConfig {
  const backend = reader.oneOf('MEMORY_BACKEND', BACKENDS, DEFAULT_MEMORY_BACKEND);
  const compactionMode = reader.oneOf('COMPACTION_MODE', MODES, 'inline');
  const databaseUrl = reader.url('DATABASE_URL', ['postgres:', 'postgresql:']);
  if (backend === 'postgres' && reader.string('DATABASE_URL') === null) {
    reader.problems.push(
      'DATABASE_URL is required with MEMORY_BACKEND=postgres (postgres://user@host:5432/db)',
    );
  }
  const natsUrl = reader.url('NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']);
  if (reader.string('NATS_URL') === null) {
    const needs =
      backend === 'nats'
        ? 'MEMORY_BACKEND=nats'
        : compactionMode === 'nats'
          ? 'COMPACTION_MODE=nats'
          : opts.requireNats
            ? 'the compaction worker'
            : null;
    if (needs) reader.problems.push(`NATS_URL is required with ${needs} (nats://host:4222)`);
  }
  const llmBaseUrl = reader.url('LLM_BASE_URL', ['http:', 'https:']);
  const llmModel = reader.string('LLM_MODEL');
  if (reader.string('LLM_BASE_URL') !== null && llmModel === null) {
    reader.problems.push('LLM_MODEL is required when LLM_BASE_URL is set');
  }
  if (
    reader.string('LLM_BASE_URL') === null &&
    (llmModel !== null || reader.string('LLM_API_KEY') !== null)
  ) {
    reader.problems.push('LLM_BASE_URL is required when LLM_MODEL or LLM_API_KEY is set');
  }
  return {
    backend,
    memoryDir: reader.string('MEMORY_DIR') ?? DEFAULT_MEMORY_DIR,
    jsonFileMinFreeMb: reader.integer('MEMORY_JSONFILE_MIN_FREE_MB', 16, 0, 1 << 30),
    simpleCapacity: reader.integer('MEMORY_SIMPLE_CAPACITY', 10000, 1),
    databaseUrl,
    pgTable: reader.string('MEMORY_PG_TABLE'),
    pgEnsureSchema: reader.oneOf('MEMORY_PG_ENSURE_SCHEMA', ['true', 'false'], 'true') === 'true',
    natsUrl,
    natsBucket: reader.matching(
      'MEMORY_NATS_BUCKET',
      NATS_BUCKET_PATTERN,
      DEFAULT_NATS_BUCKET,
      'may hold only letters, digits, "_" and "-"',
    ),
    natsTimeoutMs: reader.integer('MEMORY_NATS_TIMEOUT_MS', DEFAULT_NATS_TIMEOUT_MS, 100, 600000),
    natsWriteBudgetMs: reader.integer(
      'MEMORY_NATS_WRITE_BUDGET_MS',
      DEFAULT_WRITE_BUDGET_MS,
      0,
      600000,
    ),
    compactAtTokens: reader.integer('COMPACT_AT_TOKENS', DEFAULT_COMPACTION_THRESHOLD_TOKENS, 1),
    compactKeepRecent: reader.integer('COMPACT_KEEP_RECENT', DEFAULT_COMPACTION_KEEP_RECENT, 0),
    compactionMode,
    compactionSubject: reader.matching(
      'COMPACTION_NATS_SUBJECT',
      NATS_SUBJECT_PATTERN,
      DEFAULT_COMPACTION_SUBJECT,
      'must be dot-separated tokens of letters, digits, "_" and "-" (no wildcards)',
    ),
    compactionQueue: reader.matching(
      'COMPACTION_NATS_QUEUE',
      NATS_QUEUE_PATTERN,
      DEFAULT_COMPACTION_QUEUE,
      'may hold only letters, digits, ".", "_" and "-"',
    ),
    compactionShutdownGraceMs: reader.integer(
      'COMPACTION_SHUTDOWN_GRACE_MS',
      DEFAULT_COMPACTION_SHUTDOWN_GRACE_MS,
      0,
      600000,
    ),
    llm:
      llmBaseUrl && llmModel
        ? { baseUrl: llmBaseUrl, apiKey: reader.string('LLM_API_KEY'), model: llmModel }
        : null,
    recall: readRecallConfig(reader, databaseUrl),
  };
}

/**
 * The memory settings of `env`.
 * @param opts.requireNats the caller always needs NATS (the worker does).
 * @throws ConfigValidationError listing every bad variable.
 */
export function parseMemoryConfig(env: Env, opts: { requireNats?: boolean } = {}): MemoryConfig {
  const reader = new EnvReader(env);
  const config = readMemoryConfig(reader, opts);
  if (reader.problems.length > 0) throw new ConfigValidationError(reader.problems);
  return config;
}
