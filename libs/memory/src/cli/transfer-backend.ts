import type { MemoryBackend } from '../core/backend.interface';
import {
  DEFAULT_MEMORY_BACKEND,
  DEFAULT_MEMORY_DIR,
  DEFAULT_MEMORY_TABLE,
  DEFAULT_NATS_BUCKET,
} from '../core/defaults';
import { jsonFileBackend } from '../jsonfile/json-file.backend';
import { UsageError } from './cli-usage.error';
import { loadOptionalModule } from './optional-peer';

/**
 * The packages each store that has them needs besides this one: its optional peers (and
 * `reflect-metadata`, which TypeORM's entities need loaded first).
 */
const STORE_PEERS = { postgres: ['typeorm', 'pg', 'reflect-metadata'], nats: ['nats'] } as const;

/**
 * Loads a module of the PostgreSQL store (`reflect-metadata` first, as TypeORM's decorators
 * need), naming a missing driver package.
 * @throws MissingPeerError
 */
export function loadPostgresModule<T>(load: () => Promise<T>): Promise<T> {
  return loadOptionalModule('the postgres store', STORE_PEERS.postgres, async () => {
    await import('reflect-metadata');
    return load();
  });
}

/** Which store `export` reads and `import` writes, from flags, else the server's variables. */
export interface TransferBackendChoice {
  backend: 'jsonfile' | 'postgres' | 'nats';
  /** The JSON-file folder (always set: it has a default). */
  dir: string;
  url?: string;
  table?: string;
  natsUrl?: string;
  bucket: string;
}

/** The flags `export` and `import` take to name the store (each has the server's variable as default). */
export interface TransferBackendFlags {
  backend?: string;
  dir?: string;
  url?: string;
  table?: string;
  'nats-url'?: string;
  bucket?: string;
}

/**
 * Chooses the store as the server does (`MEMORY_BACKEND`, `MEMORY_DIR`, `DATABASE_URL`,
 * `MEMORY_PG_TABLE`, `NATS_URL`, `MEMORY_NATS_BUCKET`), each overridden by its flag, with the
 * server's defaults (`DEFAULT_MEMORY_BACKEND`, `DEFAULT_MEMORY_DIR`, `DEFAULT_NATS_BUCKET`, the
 * ones `@agent-memory/memory-config` reads): with nothing set, the JSON files in `./data/sessions`.
 * @throws UsageError naming what is missing or unknown.
 */
export function chooseTransferBackend(
  flags: TransferBackendFlags,
  env: Record<string, string | undefined>,
): TransferBackendChoice {
  const url = flags.url ?? (env.DATABASE_URL || undefined);
  const kind = flags.backend ?? (env.MEMORY_BACKEND || DEFAULT_MEMORY_BACKEND);
  const choice = {
    dir: flags.dir ?? (env.MEMORY_DIR || DEFAULT_MEMORY_DIR),
    url,
    table: flags.table ?? (env.MEMORY_PG_TABLE || undefined),
    natsUrl: flags['nats-url'] ?? (env.NATS_URL || undefined),
    bucket: flags.bucket ?? (env.MEMORY_NATS_BUCKET || DEFAULT_NATS_BUCKET),
  };
  switch (kind) {
    case 'jsonfile':
      break;
    case 'postgres':
      if (!choice.url) {
        throw new UsageError('no database: pass --url postgres://… or set DATABASE_URL');
      }
      break;
    case 'nats':
      if (!choice.natsUrl)
        throw new UsageError('no NATS server: pass --nats-url nats://… or set NATS_URL');
      break;
    default:
      throw new UsageError(
        `unknown backend "${kind}": jsonfile, postgres or nats (the in-process store lives only inside a process)`,
      );
  }
  return { backend: kind, ...choice };
}

/**
 * Opens the chosen store; PostgreSQL and NATS (and their drivers) are loaded only when chosen.
 * @param opts.readOnly open a JSON-file folder for reading only (export): nothing is written to it.
 * @throws MissingPeerError naming the driver package to install when it is missing.
 */
export async function openTransferBackend(
  choice: TransferBackendChoice,
  opts: { readOnly?: boolean } = {},
): Promise<MemoryBackend> {
  switch (choice.backend) {
    case 'jsonfile':
      return jsonFileBackend({ dir: choice.dir!, readOnly: opts.readOnly ?? false });
    case 'postgres': {
      const { postgresBackend } = await loadPostgresModule(
        () => import('../postgres/postgres.backend'),
      );
      return postgresBackend({
        url: choice.url!,
        ...(choice.table ? { table: choice.table } : {}),
      });
    }
    case 'nats': {
      const { natsBackend } = await loadOptionalModule(
        'the nats store',
        STORE_PEERS.nats,
        () => import('../nats/nats.backend'),
      );
      return natsBackend({ servers: choice.natsUrl!, bucket: choice.bucket });
    }
  }
}

/** The store in words, for messages: never the URL (it may hold a password). */
export function describeTransferBackend(choice: TransferBackendChoice): string {
  switch (choice.backend) {
    case 'jsonfile':
      return `the JSON-file folder "${choice.dir}"`;
    case 'postgres':
      return `the PostgreSQL table "${choice.table ?? DEFAULT_MEMORY_TABLE}"`;
    case 'nats':
      return `the NATS bucket "${choice.bucket}"`;
  }
}
