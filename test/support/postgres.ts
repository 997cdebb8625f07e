/**
 * PostgreSQL helpers for tests: a schema of its own per test file (test files run in parallel on
 * one server), dropped with everything in it afterwards.
 */
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { testDatabaseUrl } from './services';

/** Hands out schema names no other test uses and drops those schemas on `cleanup()`. */
export class TestSchemas {
  private readonly handedOut = new Set<string>();
  private counter = 0;

  constructor(
    private readonly prefix = 'test',
    /** The database the schemas live in. Default {@link testDatabaseUrl}. */
    readonly url = testDatabaseUrl(),
  ) {}

  /** A fresh schema name (the schema itself is created by whoever migrates into it). */
  next(): string {
    const name = `${this.prefix}_${process.pid}_${Date.now().toString(36)}_${++this.counter}`;
    this.handedOut.add(name);
    return name;
  }

  /** `<fresh schema>.<table>`, for a `table` option. */
  nextTable(table = 'conversation_memory'): string {
    return `${this.next()}.${table}`;
  }

  /** Runs `sql` on a connection of its own (for tests that tamper with rows). */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Drops every schema handed out (`CASCADE`; those never created are skipped). */
  async cleanup(): Promise<void> {
    for (const schema of this.handedOut) {
      await this.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
    this.handedOut.clear();
  }
}

/**
 * Call at the top of a spec file: a TypeORM `DataSource` on the test database, initialised before
 * the file's tests and destroyed after them, with every schema `schemas` handed out dropped.
 */
export function useTestDataSource(
  schemas: TestSchemas,
  opts: { poolSize?: number } = {},
): DataSource {
  const dataSource = new DataSource({ type: 'postgres', url: schemas.url, ...opts });
  beforeAll(async () => {
    await dataSource.initialize();
  });
  afterAll(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await schemas.cleanup();
  });
  return dataSource;
}
