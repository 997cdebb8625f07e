import type { MemoryBackend } from '../core/backend.interface';
import { jsonFileBackend } from '../jsonfile/json-file.backend';
import { UsageError } from './cli-usage.error';

/** The KV bucket the server uses when `MEMORY_NATS_BUCKET` is unset. */
const DEFAULT_NATS_BUCKET = 'agent_memory';

/** Which store `export` reads and `import` writes, from flags, else the server's variables. */
export interface TransferBackendChoice {
  backend: 'jsonfile' | 'postgres' | 'nats';
  dir?: string;
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
 * `MEMORY_PG_TABLE`, `NATS_URL`, `MEMORY_NATS_BUCKET`), each overridden by its flag. With no
 * backend named, a database URL means PostgreSQL, as for `migrate`.
 * @throws UsageError naming what is missing or unknown.
 */
export function chooseTransferBackend(
  flags: TransferBackendFlags,
  env: Record<string, string | undefined>,
): TransferBackendChoice {
  const url = flags.url ?? (env.DATABASE_URL || undefined);
  const kind = flags.backend ?? (env.MEMORY_BACKEND || (url ? 'postgres' : undefined));
  const choice = {
    dir: flags.dir ?? (env.MEMORY_DIR || undefined),
    url,
    table: flags.table ?? (env.MEMORY_PG_TABLE || undefined),
    natsUrl: flags['nats-url'] ?? (env.NATS_URL || undefined),
    bucket: flags.bucket ?? (env.MEMORY_NATS_BUCKET || DEFAULT_NATS_BUCKET),
  };
  switch (kind) {
    case undefined:
      throw new UsageError('no store: pass --backend jsonfile|postgres|nats or set MEMORY_BACKEND');
    case 'jsonfile':
      if (!choice.dir) throw new UsageError('no folder: pass --dir <path> or set MEMORY_DIR');
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

/** Opens the chosen store; PostgreSQL and NATS are loaded only when chosen. */
export async function openTransferBackend(choice: TransferBackendChoice): Promise<MemoryBackend> {
  switch (choice.backend) {
    case 'jsonfile':
      return jsonFileBackend({ dir: choice.dir! });
    case 'postgres': {
      const { postgresBackend } = await import('../postgres/postgres.backend');
      return postgresBackend({
        url: choice.url!,
        ...(choice.table ? { table: choice.table } : {}),
      });
    }
    case 'nats': {
      const { natsBackend } = await import('../nats/nats.backend');
      return natsBackend({ servers: choice.natsUrl!, bucket: choice.bucket });
    }
  }
}
