/**
 * Data of its own for each built-in store, as the variables its driver reads: a temp folder, a
 * fresh PostgreSQL table, a fresh NATS bucket. For specs that build every store through
 * `BUILT_IN_DRIVERS`; `cleanup()` closes what they built and removes the data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SettingsReader,
  type DriverContext,
  type MemoryBackend,
  type MemoryDriver,
} from '@agent-memory/memory';
import { TestBuckets } from './nats';
import { TestSchemas } from './postgres';
import { testNatsUrl } from './services';

export class IsolatedStores {
  private readonly schemas: TestSchemas;
  private readonly buckets: TestBuckets;
  private readonly dirs: string[] = [];
  private readonly backends: MemoryBackend[] = [];

  constructor(
    private readonly prefix: string,
    /** The servers the data lives on; default `testDatabaseUrl()` and `testNatsUrl()`. */
    private readonly servers: { databaseUrl?: string; natsUrl?: string } = {},
  ) {
    this.schemas = new TestSchemas(prefix, servers.databaseUrl);
    this.buckets = new TestBuckets(prefix, servers.natsUrl);
  }

  /** Fresh data for each variable a built-in store reads, made only when asked for. */
  private readonly fresh: Readonly<Record<string, () => string>> = {
    // A folder that does not exist yet, as a fresh deployment's: the store makes it.
    MEMORY_DIR: () => join(this.tempDir(), 'sessions'),
    DATABASE_URL: () => this.schemas.url,
    MEMORY_PG_TABLE: () => this.schemas.nextTable(),
    NATS_URL: () => this.servers.natsUrl ?? testNatsUrl(),
    MEMORY_NATS_BUCKET: () => this.buckets.next(),
  };

  /** Variables that point every built-in store at fresh data. */
  env(): Record<string, string> {
    return Object.fromEntries(Object.entries(this.fresh).map(([name, make]) => [name, make()]));
  }

  /** The variables `driver` reads, pointing it at fresh data (and nothing it does not read). */
  envOf(driver: MemoryDriver): Record<string, string> {
    return Object.fromEntries(
      driver.settings.flatMap(({ env }) => (this.fresh[env] ? [[env, this.fresh[env]()]] : [])),
    );
  }

  private tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), `agent-memory-${this.prefix}-`));
    this.dirs.push(dir);
    return dir;
  }

  /**
   * A backend of `driver` on fresh data, closed by {@link cleanup}.
   * @throws Error naming the settings the driver refused.
   */
  async create<B extends MemoryBackend>(
    driver: MemoryDriver<B>,
    context?: DriverContext,
  ): Promise<B> {
    const backend = await driver.create(settingsFrom(driver, this.envOf(driver)), context);
    this.backends.push(backend);
    return backend;
  }

  async cleanup(): Promise<void> {
    for (const backend of this.backends.splice(0)) await backend.close();
    await this.schemas.cleanup();
    await this.buckets.cleanup();
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The settings `driver` reads from `env`.
 * @throws Error naming every variable it refused.
 */
export function settingsFrom<S extends object>(
  driver: MemoryDriver<MemoryBackend, S>,
  env: Record<string, string>,
): S {
  const reader = new SettingsReader(env);
  const settings = driver.readSettings(reader);
  if (reader.problems.length > 0) {
    throw new Error(`${driver.kind}: ${reader.problems.join('; ')}`);
  }
  return settings;
}
