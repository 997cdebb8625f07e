import {
  BUILT_IN_DRIVERS,
  DEFAULT_COMPACTION_KEEP_RECENT,
  DEFAULT_COMPACTION_QUEUE,
  DEFAULT_COMPACTION_SHUTDOWN_GRACE_MS,
  DEFAULT_COMPACTION_SUBJECT,
  DEFAULT_COMPACTION_THRESHOLD_TOKENS,
  DEFAULT_MEMORY_BACKEND,
  SettingsReader,
  driverOfKind,
  requireDriver,
  type MemoryDriver,
} from '@agent-memory/memory';
import { ConfigValidationError } from './config-validation.error';
import { readRecallConfig, RECALL_ENV_VARS, type RecallConfig } from './recall-config';

/** The memory settings both apps (admin server and compaction worker) read from the environment. */
export interface MemoryConfig {
  /** `MEMORY_BACKEND`: the store's driver (simple, jsonfile, postgres or nats). Default jsonfile. */
  backend: string;
  /**
   * The chosen store's own settings, as its driver read them (`driver.readSettings`): the
   * jsonfile folder (`MEMORY_DIR`), the PostgreSQL table (`MEMORY_PG_TABLE`), the NATS bucket
   * (`MEMORY_NATS_BUCKET`), …; what `driver.create` takes.
   */
  store: object;
  /** `DATABASE_URL`: the PostgreSQL store's database, and semantic recall's by default. */
  databaseUrl: string | null;
  /** `NATS_URL`: required with the nats backend, with `COMPACTION_MODE=nats`, and by the worker. */
  natsUrl: string | null;
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
  ...new Set(BUILT_IN_DRIVERS.flatMap((driver) => driver.settings.map((setting) => setting.env))),
  'DATABASE_URL',
  'NATS_URL',
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

const MODES = ['inline', 'nats'] as const;
const NATS_SUBJECT_PATTERN = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const NATS_QUEUE_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** Reads the variables of one environment; empty values count as unset. */
export { SettingsReader as EnvReader };

/** Options of {@link readMemoryConfig} and {@link parseMemoryConfig}. */
export interface MemoryConfigOptions {
  /** The caller always needs NATS (the worker does). */
  requireNats?: boolean;
  /** The stores `MEMORY_BACKEND` chooses from. Default `BUILT_IN_DRIVERS`. */
  drivers?: readonly MemoryDriver[];
}

/** The driver of `config.backend` among `drivers` (default `BUILT_IN_DRIVERS`). */
export function memoryDriverOf(
  config: Pick<MemoryConfig, 'backend'>,
  drivers: readonly MemoryDriver[] = BUILT_IN_DRIVERS,
): MemoryDriver {
  return requireDriver(drivers, config.backend);
}

/**
 * Reads the memory settings (see {@link MemoryConfig} for names and defaults), adding one line per
 * bad variable to `reader.problems` (so a caller can check its own variables too and report all
 * at once). Use {@link parseMemoryConfig} to throw instead.
 */
export function readMemoryConfig(
  reader: SettingsReader,
  opts: MemoryConfigOptions = {},
): MemoryConfig {
  const drivers = opts.drivers ?? BUILT_IN_DRIVERS;
  const kinds = drivers.map((driver) => driver.kind);
  const backend = reader.oneOf('MEMORY_BACKEND', kinds, DEFAULT_MEMORY_BACKEND);
  const compactionMode = reader.oneOf('COMPACTION_MODE', MODES, 'inline');
  // The chosen store reads (and checks) its own variables.
  const driver = driverOfKind(drivers, backend);
  if (!driver) reader.report(`MEMORY_BACKEND is required: one of ${kinds.join(', ')}`);
  const store = driver?.readSettings(reader) ?? {};
  const databaseUrl = reader.url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const natsUrl = reader.url('NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']);
  if (reader.string('NATS_URL') === null) {
    const needs =
      compactionMode === 'nats'
        ? 'COMPACTION_MODE=nats'
        : opts.requireNats
          ? 'the compaction worker'
          : null;
    if (needs) reader.report(`NATS_URL is required with ${needs} (nats://host:4222)`);
  }
  const llmBaseUrl = reader.url('LLM_BASE_URL', ['http:', 'https:']);
  const llmModel = reader.string('LLM_MODEL');
  if (reader.string('LLM_BASE_URL') !== null && llmModel === null) {
    reader.report('LLM_MODEL is required when LLM_BASE_URL is set');
  }
  if (
    reader.string('LLM_BASE_URL') === null &&
    (llmModel !== null || reader.string('LLM_API_KEY') !== null)
  ) {
    reader.report('LLM_BASE_URL is required when LLM_MODEL or LLM_API_KEY is set');
  }
  return {
    backend,
    store,
    databaseUrl,
    natsUrl,
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
 * @param opts.drivers the stores `MEMORY_BACKEND` chooses from (default `BUILT_IN_DRIVERS`).
 * @throws ConfigValidationError listing every bad variable.
 */
export function parseMemoryConfig(env: Env, opts: MemoryConfigOptions = {}): MemoryConfig {
  const reader = new SettingsReader(env);
  const config = readMemoryConfig(reader, opts);
  if (reader.problems.length > 0) throw new ConfigValidationError(reader.problems);
  return config;
}
