import {
  ConfigValidationError,
  EnvReader,
  MEMORY_ENV_VARS,
  readMemoryConfig,
  type MemoryConfig,
} from '@agent-memory/memory-config';
import { readNamedTokens, type NamedTokenEntry } from '../auth/named-tokens.config';
import { readRetentionConfig, RETENTION_ENV_VARS, type RetentionConfig } from './retention-config';

export { ConfigValidationError };

/**
 * The admin server's settings, read once from the environment at start-up: the memory settings
 * shared with the worker (`@agent-memory/memory-config`) plus the server's own.
 */
export interface ApiConfig extends MemoryConfig {
  /** `MEMORY_ADMIN_TOKEN`: bearer token for `/api`; null makes a random one at start-up. */
  adminToken: string | null;
  /**
   * `MEMORY_ADMIN_TOKENS` (inline) and `MEMORY_ADMIN_TOKENS_FILE` (a file): named tokens with roles,
   * each given by its SHA-256 (see docs/operations.md, "Tokens and roles"). Empty when unset.
   */
  namedTokens: NamedTokenEntry[];
  /** `AUDIT_MAX_ENTRIES`: the audit log keeps at most this many newest entries. Default 10000. */
  auditMaxEntries: number;
  /** `AUDIT_MAX_AGE_MS`: audit entries older than this are dropped. Default 7776000000 (90 days). */
  auditMaxAgeMs: number;
  /** `HOST`: interface to listen on. Default `127.0.0.1` (the images set `0.0.0.0`). */
  host: string;
  /** `PORT`: default 3000; 0 picks a free port. */
  port: number;
  /** `CORS_ORIGINS`: comma-separated origins allowed to call the API; empty (default) allows none. */
  corsOrigins: string[];
  /** `SHUTDOWN_DELAY_MS`: on SIGTERM, how long readiness reports 503 before the server stops accepting. Default 0. */
  shutdownDelayMs: number;
  /** `SHUTDOWN_DRAIN_MS`: how long SIGTERM then waits for in-flight requests. Default 10000. */
  shutdownDrainMs: number;
  /**
   * `AUTH_FAILURE_LIMIT`: wrong tokens one client address may send per `AUTH_FAILURE_WINDOW_MS`
   * before all its `/api` requests get 429 for that long (no token at all is not counted). Default 20.
   */
  authFailureLimit: number;
  /** `AUTH_FAILURE_WINDOW_MS`: the window (and block time) of `AUTH_FAILURE_LIMIT`. Default 60000. */
  authFailureWindowMs: number;
  /**
   * `METRICS_PORT`: serve `/metrics` (Prometheus, no token) on this port of `HOST` instead of on the
   * API port (where it needs the token). Default unset.
   */
  metricsPort: number | null;
  /** `LOG_FORMAT`: `json` (one JSON object a line) or `text`. Default json when `NODE_ENV=production`. */
  logFormat: 'json' | 'text';
  /** `COMPACTION_JOB_TTL_MS`: how long a compaction job's state is kept for `GET /api/compactions/:id`. Default 86400000 (a day). */
  compactionJobTtlMs: number;
  /**
   * `COMPACTION_JOB_LEASE_MS`: a queued or running job whose replica has not renewed it for this
   * long is reported failed (`JOB_OWNER_LOST`). Default 30000.
   */
  compactionJobLeaseMs: number;
  /** `MEMORY_RETENTION_*`: how long sessions are kept (see {@link RetentionConfig}); null (default) is off. */
  retention: RetentionConfig | null;
}

/** Every environment variable the server reads; the deployment files are checked against it. */
export const API_ENV_VARS = [
  ...MEMORY_ENV_VARS,
  'MEMORY_ADMIN_TOKEN',
  'MEMORY_ADMIN_TOKENS',
  'MEMORY_ADMIN_TOKENS_FILE',
  'AUDIT_MAX_ENTRIES',
  'AUDIT_MAX_AGE_MS',
  'HOST',
  'PORT',
  'CORS_ORIGINS',
  'SHUTDOWN_DELAY_MS',
  'SHUTDOWN_DRAIN_MS',
  'AUTH_FAILURE_LIMIT',
  'AUTH_FAILURE_WINDOW_MS',
  'METRICS_PORT',
  'LOG_FORMAT',
  'COMPACTION_JOB_TTL_MS',
  'COMPACTION_JOB_LEASE_MS',
  ...RETENTION_ENV_VARS,
] as const;

/**
 * Tokens that were published as examples (`docker/k8s/examples/secret.example.yaml`), refused so
 * that an example applied by mistake never guards a real server.
 */
export const EXAMPLE_ADMIN_TOKENS: readonly string[] = ['change-me-to-a-long-random-token'];

/** Shortest `MEMORY_ADMIN_TOKEN` accepted. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** Fewest different characters a `MEMORY_ADMIN_TOKEN` may have (`aaaa…` is no secret). */
export const MIN_ADMIN_TOKEN_DISTINCT_CHARS = 8;

/** Words of the placeholder tokens in examples and docs; a token containing one is refused. */
const PLACEHOLDER_TOKEN_WORDS = ['change-me', 'changeme', 'change_me', 'example', 'placeholder'];

/** Why `token` cannot be the admin token, or null when it can. */
export function adminTokenProblem(token: string): string | null {
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    return `MEMORY_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long (or unset, for a random one)`;
  }
  const lower = token.toLowerCase();
  const word = PLACEHOLDER_TOKEN_WORDS.find((placeholder) => lower.includes(placeholder));
  if (word) {
    return `MEMORY_ADMIN_TOKEN looks like the example value (it contains "${word}"): set a random one, such as the output of "openssl rand -hex 32"`;
  }
  if (new Set(token).size < MIN_ADMIN_TOKEN_DISTINCT_CHARS) {
    return `MEMORY_ADMIN_TOKEN must have at least ${MIN_ADMIN_TOKEN_DISTINCT_CHARS} different characters: set a random one, such as the output of "openssl rand -hex 32"`;
  }
  return null;
}

/**
 * Reads and checks the server's settings from environment variables (see {@link ApiConfig} and
 * `MemoryConfig` for names and defaults). Empty values count as unset.
 * @throws ConfigValidationError listing every bad variable, what it holds and what is expected.
 */
export function parseApiConfig(env: Record<string, string | undefined>): ApiConfig {
  const reader = new EnvReader(env);
  const memory = readMemoryConfig(reader);
  const adminToken = reader.string('MEMORY_ADMIN_TOKEN');
  const tokenProblem = adminToken === null ? null : adminTokenProblem(adminToken);
  if (tokenProblem) reader.problems.push(tokenProblem);
  const namedTokens = readNamedTokens(
    reader.string('MEMORY_ADMIN_TOKENS'),
    reader.string('MEMORY_ADMIN_TOKENS_FILE'),
    adminToken !== null,
    reader.problems,
  );
  const metricsPort = reader.string('METRICS_PORT');
  const config: ApiConfig = {
    ...memory,
    adminToken,
    namedTokens,
    auditMaxEntries: reader.integer('AUDIT_MAX_ENTRIES', 10_000, 1, 10_000_000),
    auditMaxAgeMs: reader.integer('AUDIT_MAX_AGE_MS', 90 * 86_400_000, 60_000, 3650 * 86_400_000),
    host: reader.string('HOST') ?? '127.0.0.1',
    port: reader.integer('PORT', 3000, 0, 65535),
    corsOrigins: (reader.string('CORS_ORIGINS') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    shutdownDelayMs: reader.integer('SHUTDOWN_DELAY_MS', 0, 0, 600000),
    shutdownDrainMs: reader.integer('SHUTDOWN_DRAIN_MS', 10000, 0, 600000),
    authFailureLimit: reader.integer('AUTH_FAILURE_LIMIT', 20, 1, 1_000_000),
    authFailureWindowMs: reader.integer('AUTH_FAILURE_WINDOW_MS', 60000, 1000, 86_400_000),
    metricsPort: metricsPort === null ? null : reader.integer('METRICS_PORT', 0, 0, 65535),
    logFormat: reader.oneOf(
      'LOG_FORMAT',
      ['json', 'text'] as const,
      env.NODE_ENV === 'production' ? 'json' : 'text',
    ),
    compactionJobTtlMs: reader.integer('COMPACTION_JOB_TTL_MS', 86_400_000, 1000, 30 * 86_400_000),
    compactionJobLeaseMs: reader.integer('COMPACTION_JOB_LEASE_MS', 30000, 500, 3_600_000),
    retention: readRetentionConfig(reader),
  };
  if (reader.problems.length > 0) throw new ConfigValidationError(reader.problems);
  return config;
}
