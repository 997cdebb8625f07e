import type { MemoryBackend } from '../core/backend.interface';
import { DEFAULT_MEMORY_BACKEND } from '../core/defaults';
import type { MemoryDriver } from '../core/memory-driver';
import { SettingsReader } from '../core/settings-reader';
import { BUILT_IN_DRIVERS } from '../drivers/built-in-drivers';
import { UsageError } from './cli-usage.error';

export { loadPostgresModule } from '../postgres/postgres.driver';

/** Which store `export` reads and `import` writes: its driver and the settings it read. */
export interface TransferBackendChoice {
  driver: MemoryDriver;
  /** What `driver.readSettings` returned (flags over variables over defaults). */
  settings: object;
}

/**
 * The flags `export`, `import` and `mcp` take to name the store: `--backend`, and each store's
 * own (`--dir`, `--url`, `--table`, `--nats-url`, `--bucket`), each overriding its variable.
 */
export type TransferBackendFlags = { backend?: string } & Record<string, unknown>;

/**
 * Chooses the store as the server does (`MEMORY_BACKEND`, then the chosen store's variables:
 * `MEMORY_DIR`, `DATABASE_URL`, `MEMORY_PG_TABLE`, `NATS_URL`, `MEMORY_NATS_BUCKET`), each
 * overridden by its flag, with the server's defaults: with nothing set, the JSON files in
 * `./data/sessions`. Only stores that outlive a process can be chosen.
 * @param drivers the stores to choose from (default `BUILT_IN_DRIVERS`).
 * @throws UsageError naming what is missing, bad or unknown.
 */
export function chooseTransferBackend(
  flags: TransferBackendFlags,
  env: Record<string, string | undefined>,
  drivers: readonly MemoryDriver[] = BUILT_IN_DRIVERS,
): TransferBackendChoice {
  const durable = drivers.filter((driver) => driver.durable);
  const kind = flags.backend ?? (env.MEMORY_BACKEND || DEFAULT_MEMORY_BACKEND);
  const driver = durable.find((candidate) => candidate.kind === kind);
  if (!driver) {
    const inProcess = drivers.filter((d) => !d.durable).map((d) => d.kind);
    throw new UsageError(
      `unknown backend "${kind}": ${orList(durable.map((d) => d.kind))}` +
        (inProcess.length > 0 ? ` (${orList(inProcess)} lives only inside a process)` : ''),
    );
  }
  return { driver, settings: readStoreSettings(driver, flags, env) };
}

/**
 * The settings of `driver` from its variables in `env`, each overridden by its flag.
 * @throws UsageError naming every setting that is missing or bad.
 */
export function readStoreSettings<S extends object>(
  driver: MemoryDriver<MemoryBackend, S>,
  flags: Record<string, unknown>,
  env: Record<string, string | undefined>,
): S {
  const values = { ...env };
  for (const setting of driver.settings) {
    const flag = setting.flag === undefined ? undefined : flags[setting.flag];
    if (typeof flag === 'string') values[setting.env] = flag;
  }
  const reader = new SettingsReader(values, [], 'flags');
  const settings = driver.readSettings(reader);
  if (reader.problems.length > 0) throw new UsageError(reader.problems.join('; '));
  return settings;
}

/**
 * Opens the chosen store; a store's optional packages are loaded only when it is chosen.
 * @param opts.readOnly open it for reading only (export): a JSON-file folder gets no write.
 * @throws MissingPeerError naming the package to install when it is missing.
 */
export function openTransferBackend(
  choice: TransferBackendChoice,
  opts: { readOnly?: boolean } = {},
): Promise<MemoryBackend> {
  return choice.driver.create(choice.settings, { readOnly: opts.readOnly ?? false });
}

/** The store in words, for messages: never the URL (it may hold a password). */
export function describeTransferBackend(choice: TransferBackendChoice): string {
  return choice.driver.describeSettings(choice.settings);
}

/** Every flag some store reads, for the command's parser. */
export function storeFlags(drivers: readonly MemoryDriver[] = BUILT_IN_DRIVERS): string[] {
  return [...new Set(drivers.flatMap((driver) => driver.settings.flatMap((s) => s.flag ?? [])))];
}

/** `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
