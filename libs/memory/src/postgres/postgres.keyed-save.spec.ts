import { Client } from 'pg';
import {
  IDEMPOTENCY_KEY_WINDOW,
  IdempotencyKeyReusedError,
  assistantMessage,
  userMessage,
  type Message,
  type SaveResult,
} from '@agent-memory/memory';
import {
  PostgresMemory,
  memoryTableNames,
  postgresBackend,
  postgresDriver,
} from '@agent-memory/memory/postgres';
import { texts } from '@agent-memory/conformance';
import { backendSpec } from '@agent-memory/test-conformance';
import { runTogether, startScript } from '@agent-memory/test-support/child-script';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import {
  STORE_PROCESS_SCRIPT,
  storeProcessArgs,
  type TurnWriterResult,
} from '@agent-memory/test-support/store-process';

const schemas = new TestSchemas('pgkeyed');
const dataSource = useTestDataSource(schemas, { poolSize: 6 });

const turn = (i: number): Message[] => [userMessage(`q${i}`), assistantMessage(`a${i}`)];

/** The session's rows as `seq: text`, and its counters: what a duplicate would change. */
async function stored(table: string, session: string) {
  const rows = await schemas.query<{ text: string }>(
    `SELECT message->'parts'->0->>'text' AS text FROM ${table} WHERE session_id = $1 ORDER BY seq`,
    [session],
  );
  const [counts] = await schemas.query<{ saved: string; stored: string }>(
    `SELECT saved, stored FROM ${table}_sessions WHERE session_id = $1`,
    [session],
  );
  return { texts: rows.map((row) => row.text), saved: Number(counts?.saved ?? 0) };
}

/** Another connection holding the session's advisory lock (the one every save takes) until `release()`. */
async function holdSessionLock(table: string, session: string) {
  const lockKey = memoryTableNames(table).lockKey + session;
  const client = new Client({ connectionString: schemas.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
  return {
    /** Resolves once `count` saves wait for this lock (seen in `pg_locks`). */
    async waiters(count: number): Promise<void> {
      for (;;) {
        const [{ n }] = (
          await client.query(
            `SELECT count(*)::int AS n FROM pg_locks
             WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
               AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
            [lockKey],
          )
        ).rows as [{ n: number }];
        if (n >= count) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async release(): Promise<void> {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

describe('PostgresMemory keyed saves', () => {
  it('stores a keyed batch once: a retry answers as the first time, in this backend and in a new one', async () => {
    const table = schemas.nextTable();
    const memory = await PostgresMemory.open(dataSource, 'retry', { table });
    const first = await memory.save(turn(0), { idempotencyKey: 'turn-0' });
    expect(first).toMatchObject({ replayed: false });
    expect(first.last).toBe(first.first! + 1);
    const again = await memory.save(turn(0), { idempotencyKey: 'turn-0' });
    expect(again).toEqual({ first: first.first, last: first.last, replayed: true });
    // An empty batch under the key only looks it up.
    expect(await memory.save([], { idempotencyKey: 'turn-0' })).toEqual(again);
    expect(await memory.save([], { idempotencyKey: 'never' })).toEqual({
      first: null,
      last: null,
      replayed: false,
    });

    // A restart: a backend of its own (its own pool, nothing remembered in this process's groups).
    const restarted = await postgresBackend({ url: schemas.url, table, poolSize: 2 });
    try {
      const retried = await (
        await restarted.open('retry')
      ).save(turn(0), {
        idempotencyKey: 'turn-0',
      });
      expect(retried).toEqual(again);
    } finally {
      await restarted.close();
    }
    expect(await stored(table, 'retry')).toEqual({ texts: ['q0', 'a0'], saved: 2 });
  });

  it('refuses the key with other messages and stores nothing of them; keys are per session', async () => {
    const table = schemas.nextTable();
    const memory = await PostgresMemory.open(dataSource, 'reuse', { table });
    await memory.save(turn(0), { idempotencyKey: 'k' });
    const reuse = memory.save(turn(1), { idempotencyKey: 'k' });
    await expect(reuse).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(reuse).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', session: 'reuse' });
    expect(await stored(table, 'reuse')).toEqual({ texts: ['q0', 'a0'], saved: 2 });
    // The same key in another session is another key.
    const other = await PostgresMemory.open(dataSource, 'other', { table });
    expect(await other.save(turn(1), { idempotencyKey: 'k' })).toMatchObject({ replayed: false });
    // Clearing a session forgets its keys with it.
    await memory.clear();
    expect(await memory.save(turn(0), { idempotencyKey: 'k' })).toMatchObject({ replayed: false });
  });

  it('groups keyed and unkeyed saves waiting on one session into one statement, each batch whole and in order', async () => {
    const table = schemas.nextTable();
    const memory = await PostgresMemory.open(dataSource, 'group', { table });
    await memory.save(turn(0), { idempotencyKey: 't0' });
    const lock = await holdSessionLock(table, 'group');
    // The first save waits for the held lock; the others queue behind it in this process.
    const saves = [
      memory.save(turn(1), { idempotencyKey: 't1' }),
      memory.save(turn(2)),
      memory.save(turn(3), { idempotencyKey: 't3' }),
      memory.save(turn(0), { idempotencyKey: 't0' }),
      memory.save(turn(4), { idempotencyKey: 't3' }),
      memory.save(turn(3), { idempotencyKey: 't3' }),
      memory.save(turn(5)),
    ];
    await lock.waiters(1);
    await lock.release();
    const results = await Promise.allSettled(saves);
    const [t1, plain, t3, t0, reused, t3again, last] = results;
    expect(t1).toMatchObject({ status: 'fulfilled', value: { replayed: false } });
    expect(plain).toMatchObject({ status: 'fulfilled', value: { replayed: false } });
    expect(t3).toMatchObject({ status: 'fulfilled', value: { replayed: false } });
    expect(t0).toMatchObject({ status: 'fulfilled', value: { replayed: true } });
    expect(reused).toMatchObject({
      status: 'rejected',
      reason: { code: 'IDEMPOTENCY_KEY_REUSED' },
    });
    expect(t3again).toEqual({
      status: 'fulfilled',
      value: { ...(t3 as PromiseFulfilledResult<SaveResult>).value, replayed: true },
    });
    expect(last).toMatchObject({ status: 'fulfilled', value: { replayed: false } });
    expect(await stored(table, 'group')).toEqual({
      texts: ['q0', 'a0', 'q1', 'a1', 'q2', 'a2', 'q3', 'a3', 'q5', 'a5'],
      saved: 10,
    });
    const entries = await memory.entries();
    for (const result of results) {
      if (result.status !== 'fulfilled') continue;
      const { first, last: end } = result.value;
      // Each batch's two rows are next to each other (no other save's row between them).
      const at = entries.findIndex((entry) => entry.cursor === first);
      expect(entries[at + 1]?.cursor).toBe(end);
    }
  });

  it('checks the key on the contended path too: a save that waited for the lock, and its retry', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    const first = await (await backend.open('contended')).save(turn(0), { idempotencyKey: 'k0' });
    const lock = await holdSessionLock(table, 'contended');
    const waiting = (await backend.open('contended')).save(turn(1), { idempotencyKey: 'k1' });
    await lock.waiters(1);
    await lock.release();
    const saved = await waiting;
    expect(saved).toMatchObject({ replayed: false });

    // Contended again: the backend now knows the session as contended and goes straight to the
    // procedure (a fresh store object: what it learned is the backend's, not the store's).
    const again = await holdSessionLock(table, 'contended');
    const retries = [
      (await backend.open('contended')).save(turn(1), { idempotencyKey: 'k1' }),
      (await backend.open('contended')).save(turn(0), { idempotencyKey: 'k0' }),
      (await backend.open('contended')).save(turn(9), { idempotencyKey: 'k0' }),
    ];
    await again.waiters(1);
    await again.release();
    const [k1, k0, reused] = await Promise.allSettled(retries);
    expect(k1).toEqual({ status: 'fulfilled', value: { ...saved, replayed: true } });
    expect(k0).toEqual({ status: 'fulfilled', value: { ...first, replayed: true } });
    expect(reused).toMatchObject({
      status: 'rejected',
      reason: { code: 'IDEMPOTENCY_KEY_REUSED' },
    });
    expect(await stored(table, 'contended')).toEqual({ texts: ['q0', 'a0', 'q1', 'a1'], saved: 4 });
  });

  it('keeps exactly one copy of each keyed turn when two processes save the same keyed turns at once, and after a restart', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    const spec = backendSpec(postgresDriver, { DATABASE_URL: schemas.url, MEMORY_PG_TABLE: table });
    const turns = 30;
    const writers = (count: number) =>
      runTogether(
        Array.from({ length: count }, () =>
          startScript<TurnWriterResult>(
            STORE_PROCESS_SCRIPT,
            // The same writer name: the same messages under the same keys (`w0-t<i>`).
            storeProcessArgs('turn-writer', spec, 'shared', '0', turns, 'keyed'),
          ),
        ),
      );
    const together = await writers(2);
    for (const result of together) expect(result.acknowledged).toHaveLength(turns);
    const expected = Array.from({ length: turns }, (_, i) => [`w0-q${i}`, `w0-a${i}`]).flat();
    expect(await stored(table, 'shared')).toEqual({ texts: expected, saved: 2 * turns });
    // A new process retrying every turn stores nothing.
    const [restarted] = await writers(1);
    expect(restarted!.acknowledged).toHaveLength(turns);
    expect(await stored(table, 'shared')).toEqual({ texts: expected, saved: 2 * turns });
    expect(texts(await (await backend.open('shared')).retrieve())).toEqual(expected);
  }, 60_000);

  it('remembers at least the newest keys of a session and forgets old ones in bulk', async () => {
    const table = schemas.nextTable();
    const memory = await PostgresMemory.open(dataSource, 'window', { table });
    const saves = 3 * IDEMPOTENCY_KEY_WINDOW;
    for (let i = 0; i < saves; i++) {
      await memory.save([userMessage(`m${i}`)], { idempotencyKey: `k${i}` });
    }
    const [{ kept }] = await schemas.query<{ kept: number }>(
      `SELECT count(*)::int AS kept FROM ${table}_keys WHERE session_id = 'window'`,
    );
    expect(kept).toBeGreaterThanOrEqual(IDEMPOTENCY_KEY_WINDOW);
    expect(kept).toBeLessThanOrEqual(2 * IDEMPOTENCY_KEY_WINDOW);
    for (let i = saves - IDEMPOTENCY_KEY_WINDOW; i < saves; i++) {
      expect(await memory.save([userMessage(`m${i}`)], { idempotencyKey: `k${i}` })).toMatchObject({
        replayed: true,
      });
    }
    expect((await stored(table, 'window')).saved).toBe(saves);
  });
});
