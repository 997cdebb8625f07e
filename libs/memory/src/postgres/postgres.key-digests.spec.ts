/**
 * The digest a keyed save keeps with its key in `<table>_keys`: a retry is told from a reuse of
 * the key with other messages whichever form the digest was recorded in (earlier releases kept
 * `batchDigest`'s, of the batch in canonical JSON), on the lone writer's path and the contended
 * one.
 */
import { Client } from 'pg';
import { assistantMessage, userMessage, type Message } from '@agent-memory/memory';
import { PostgresMemory, memoryTableNames } from '@agent-memory/memory/postgres';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { batchDigest } from '../core/idempotency';
import { validateMessages } from '../core/message.codec';

const schemas = new TestSchemas('pgdigest');
const dataSource = useTestDataSource(schemas, { poolSize: 4 });

const turn = (i: number): Message[] => [userMessage(`q${i}`), assistantMessage(`a${i}`)];

/** The session's stored message texts, in order. */
async function texts(table: string, session: string): Promise<string[]> {
  const rows = await schemas.query<{ text: string }>(
    `SELECT message->'parts'->0->>'text' AS text FROM ${table} WHERE session_id = $1 ORDER BY seq`,
    [session],
  );
  return rows.map((row) => row.text);
}

/** Resolves once a save waits for the advisory lock `lockKey` (seen in `pg_locks`). */
async function waitForLockWaiter(holder: Client, lockKey: string): Promise<void> {
  for (;;) {
    const { rows } = await holder.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
         AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
      [lockKey],
    );
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('PostgresMemory key digests', () => {
  it('replays a key recorded with the digest of earlier releases, and refuses it with other messages', async () => {
    const table = schemas.nextTable();
    const memory = await PostgresMemory.open(dataSource, 'legacy', { table });
    const first = await memory.save(turn(0), { idempotencyKey: 'k' });
    // As an earlier release recorded it: SHA-256 of the batch in canonical JSON.
    await schemas.query(`UPDATE ${table}_keys SET digest = $1 WHERE key = 'k'`, [
      batchDigest(validateMessages(turn(0))),
    ]);

    expect(await memory.save(turn(0), { idempotencyKey: 'k' })).toEqual({
      ...first,
      replayed: true,
    });
    await expect(memory.save(turn(1), { idempotencyKey: 'k' })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });

    // The contended path (the save procedure) compares it the same way.
    const holder = new Client({ connectionString: schemas.url });
    await holder.connect();
    try {
      const lockKey = memoryTableNames(table).lockKey + 'legacy';
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
      const retry = memory.save(turn(0), { idempotencyKey: 'k' });
      const reuse = memory.save(turn(2), { idempotencyKey: 'k' });
      const settled = Promise.allSettled([retry, reuse]);
      await waitForLockWaiter(holder, lockKey);
      await holder.query('COMMIT');
      const [retried, reused] = await settled;
      expect(retried).toEqual({ status: 'fulfilled', value: { ...first, replayed: true } });
      expect(reused).toMatchObject({
        status: 'rejected',
        reason: { code: 'IDEMPOTENCY_KEY_REUSED' },
      });
    } finally {
      await holder.end();
    }
    expect(await texts(table, 'legacy')).toEqual(['q0', 'a0']);
  });

  it('replays a batch holding providerData whatever the order of its keys', async () => {
    const table = schemas.nextTable();
    const memory = await PostgresMemory.open(dataSource, 'provider', { table });
    const withData = (providerData: Record<string, unknown>): Message[] => [
      { ...userMessage('q'), providerData },
    ];
    const first = await memory.save(withData({ a: 1, b: { c: 2, d: 3 } }), {
      idempotencyKey: 'p',
    });
    expect(
      await memory.save(withData({ b: { d: 3, c: 2 }, a: 1 }), { idempotencyKey: 'p' }),
    ).toEqual({ ...first, replayed: true });
    await expect(
      memory.save(withData({ a: 2, b: { c: 2, d: 3 } }), { idempotencyKey: 'p' }),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await texts(table, 'provider')).toEqual(['q']);
  });
});
