import { ConfigValidationError } from '../../../shared/config-validation.error';
import {
  EnvReader,
  MEMORY_ENV_VARS,
  readMemoryConfig,
  type MemoryConfig,
} from '../../../shared/memory-config';

export { ConfigValidationError };

/**
 * The admin server's settings, read once from the environment at start-up: the memory settings
 * shared with the worker (`apps/shared/memory-config.ts`) plus the server's own.
 */
export interface ApiConfig extends MemoryConfig {
  /** `MEMORY_ADMIN_TOKEN`: bearer token for `/api`; null makes a random one at start-up. */
  adminToken: string | null;
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
}

/** Every environment variable the server reads; the deployment files are checked against it. */
export const API_ENV_VARS = [
  ...MEMORY_ENV_VARS,
  'MEMORY_ADMIN_TOKEN',
  'HOST',
  'PORT',
  'CORS_ORIGINS',
  'SHUTDOWN_DELAY_MS',
  'SHUTDOWN_DRAIN_MS',
] as const;

/**
 * Tokens that were published as examples (`docker/k8s/examples/secret.example.yaml`), refused so
 * that an example applied by mistake never guards a real server.
 */
export const EXAMPLE_ADMIN_TOKENS: readonly string[] = ['change-me-to-a-long-random-token'];

/** Shortest `MEMORY_ADMIN_TOKEN` accepted. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/**
 * Reads and checks the server's settings from environment variables (see {@link ApiConfig} and
 * `MemoryConfig` for names and defaults). Empty values count as unset.
 * @throws ConfigValidationError listing every bad variable, what it holds and what is expected.
 */
export function parseApiConfig(env: Record<string, string | undefined>): ApiConfig {
  const reader = new EnvReader(env);
  const memory = readMemoryConfig(reader);
  const adminToken = reader.string('MEMORY_ADMIN_TOKEN');
  if (adminToken !== null && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    reader.problems.push(
      `MEMORY_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long (or unset, for a random one)`,
    );
  }
  if (adminToken !== null && EXAMPLE_ADMIN_TOKENS.includes(adminToken)) {
    reader.problems.push(
      'MEMORY_ADMIN_TOKEN is the published example value: set a random one (openssl rand -hex 32)',
    );
  }
  const config: ApiConfig = {
    ...memory,
    adminToken,
    host: reader.string('HOST') ?? '127.0.0.1',
    port: reader.integer('PORT', 3000, 0, 65535),
    corsOrigins: (reader.string('CORS_ORIGINS') ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    shutdownDelayMs: reader.integer('SHUTDOWN_DELAY_MS', 0, 0, 600000),
    shutdownDrainMs: reader.integer('SHUTDOWN_DRAIN_MS', 10000, 0, 600000),
  };
  if (reader.problems.length > 0) throw new ConfigValidationError(reader.problems);
  return config;
}
