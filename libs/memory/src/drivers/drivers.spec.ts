/**
 * What every built-in driver promises its users (the configuration, the command, the health
 * checks): it reads exactly the variables it lists, names what is missing or bad, never shows a
 * URL, and finds its store under any decorator; a driver of your own plugs in the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsolatedStores } from '@agent-memory/test-support/isolated-stores';
import { userMessage } from '../core/message';
import { instrumentBackend } from '../observability/instrumented.backend';
import { HashedNgramEmbedder } from '../rag/hashed-ngram.embedder';
import { InMemoryVectorStore } from '../rag/in-memory-vector.store';
import { withRecall } from '../rag/recall.backend';
import type { MemoryBackend } from '../core/backend.interface';
import { driverOfBackend } from '../core/driver-lookup';
import type { MemoryDriver } from '../core/memory-driver';
import { readinessByCheck } from '../core/memory-readiness';
import { SettingsReader } from '../core/settings-reader';
import { innermostBackend } from '../core/wrapping-backend';
import { simpleBackend } from '../simple/simple.backend';
import { simpleDriver } from '../simple/simple.driver';
import { jsonFileDriver } from '../jsonfile/json-file.driver';
import { postgresDriver } from '../postgres/postgres.driver';
import { natsDriver } from '../nats/nats.driver';
import { BUILT_IN_DRIVERS } from './built-in-drivers';
import { checkMemoryReadiness } from './memory-readiness';

/** The variable names `driver.readSettings` asks a reader about. */
function variablesRead(driver: MemoryDriver): string[] {
  const asked = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  driver.readSettings(new SettingsReader(env));
  return [...asked].sort();
}

describe('the built-in drivers', () => {
  it('list every variable they read, once each, with a flag only where the command takes one', () => {
    for (const driver of BUILT_IN_DRIVERS) {
      const listed = driver.settings.map((setting) => setting.env);
      expect([driver.kind, variablesRead(driver)]).toEqual([driver.kind, [...listed].sort()]);
      expect(new Set(listed).size).toBe(listed.length);
    }
    const flags = BUILT_IN_DRIVERS.flatMap((d) => d.settings.flatMap((s) => s.flag ?? []));
    expect(flags.sort()).toEqual(['bucket', 'dir', 'nats-url', 'table', 'url']);
  });

  it('have distinct kinds, and only the in-process store is not durable', () => {
    const kinds = BUILT_IN_DRIVERS.map((driver) => driver.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(BUILT_IN_DRIVERS.filter((driver) => !driver.durable)).toEqual([simpleDriver]);
  });

  it('name a required variable as the servers and as the command say it', () => {
    const server = new SettingsReader({});
    postgresDriver.readSettings(server);
    natsDriver.readSettings(server);
    expect(server.problems).toEqual([
      'DATABASE_URL is required with MEMORY_BACKEND=postgres (postgres://user@host:5432/db)',
      'NATS_URL is required with MEMORY_BACKEND=nats (nats://host:4222)',
    ]);
    const command = new SettingsReader({}, [], 'flags');
    postgresDriver.readSettings(command);
    expect(command.problems).toEqual([
      'no database: pass --url postgres://user@host:5432/db or set DATABASE_URL',
    ]);
  });

  it('name a bad value with its variable', () => {
    const reader = new SettingsReader({
      MEMORY_SIMPLE_CAPACITY: '0',
      MEMORY_JSONFILE_MIN_FREE_MB: 'lots',
      DATABASE_URL: 'mysql://h/db',
      MEMORY_PG_ENSURE_SCHEMA: 'maybe',
      NATS_URL: 'nats://h:4222',
      MEMORY_NATS_BUCKET: 'a.b',
    });
    for (const driver of BUILT_IN_DRIVERS) driver.readSettings(reader);
    expect(reader.problems.map((line) => line.split(/[= ]/)[0])).toEqual([
      'MEMORY_SIMPLE_CAPACITY',
      'MEMORY_JSONFILE_MIN_FREE_MB',
      'DATABASE_URL',
      'MEMORY_PG_ENSURE_SCHEMA',
      'MEMORY_NATS_BUCKET',
    ]);
  });

  it('describe a store without its URL, which may hold a password', () => {
    const env = {
      DATABASE_URL: 'postgres://app:s3cret@db:5432/app',
      NATS_URL: 'nats://user:s3cret@nats:4222',
    };
    for (const driver of BUILT_IN_DRIVERS) {
      const described = driver.describeSettings(driver.readSettings(new SettingsReader(env)));
      expect(described).not.toContain('s3cret');
      expect(described).not.toMatch(/:\/\//);
    }
  });
});

describe('options of a store’s factory, through DriverContext.options', () => {
  const stores = new IsolatedStores('driver_options');
  afterAll(() => stores.cleanup());

  it.each(BUILT_IN_DRIVERS.map((driver) => [driver.kind, driver] as const))(
    '%s: reach the factory (pruneCompacted on, then off)',
    async (_kind, driver) => {
      const kept: number[][] = [];
      for (const pruneCompacted of [true, false]) {
        const backend = await stores.create(driver, { options: { pruneCompacted } });
        const memory = await backend.open('pruned');
        await memory.save([userMessage('one'), userMessage('two'), userMessage('three')]);
        await memory.saveSnapshot({ summary: 'one and two' }, 2, null);
        kept.push((await memory.entries()).map((entry) => entry.cursor));
      }
      expect(kept).toEqual([[3], [1, 2, 3]]);
    },
  );

  it('win over the settings of the same name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-memory-driver-options-'));
    try {
      const backend = await stores.create(jsonFileDriver, { options: { dir } });
      expect(backend.dir).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('finding a backend’s driver', () => {
  const decorated = (backend: MemoryBackend) =>
    instrumentBackend(
      withRecall(backend, {
        embedder: new HashedNgramEmbedder({ dimensions: 16 }),
        store: new InMemoryVectorStore(16),
        catchUpOnStart: false,
      }),
    );

  it('reaches the store under tracing and recall, without a cast', async () => {
    const store = simpleBackend({ capacity: 5 });
    const backend = decorated(store);
    expect(innermostBackend(backend)).toBe(store);
    const driven = driverOfBackend(BUILT_IN_DRIVERS, backend);
    expect(driven?.driver).toBe(simpleDriver);
    expect(driven?.store).toBe(store);
    expect(jsonFileDriver.owns(store)).toBe(false);
    await backend.close();
  });

  it('checks readiness through a driver of your own, and by check() when none owns the store', async () => {
    const store: MemoryBackend = { ...simpleBackend({ capacity: 5 }), kind: 'mine' };
    const mine: MemoryDriver = {
      ...simpleDriver,
      kind: 'mine',
      owns: (backend) => backend === store,
      describe: () => 'my store',
      readiness: async (backend) => ({
        ...(await readinessByCheck(backend)),
        details: { mine: true },
      }),
    };
    expect(await checkMemoryReadiness(decorated(store), { drivers: [mine] })).toEqual({
      ready: true,
      kind: 'mine',
      details: { mine: true },
      missing: [],
    });
    expect(await checkMemoryReadiness(store)).toEqual({
      ready: true,
      kind: 'mine',
      details: {},
      missing: [],
    });
  });
});
