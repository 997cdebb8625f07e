/**
 * Faults survived: the server killed with SIGKILL in the middle of JSON-file writes (every file
 * still valid JSON, every acknowledged save present once), and PostgreSQL / NATS stopped and
 * restarted under load (503 while down, recovery without restarting the app, nothing lost;
 * nothing duplicated once the server honours the Idempotency-Key its retries carry).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileBackend } from '@agent-memory/memory';
import { startApiProcess } from '../../apps/api/test/support/api-process';
import {
  backendEnv,
  startTestServer,
  TEST_ADMIN_TOKEN,
} from '../../apps/api/test/support/api-test-server';
import {
  startThrowawayNats,
  startThrowawayPostgres,
  type ThrowawayServer,
} from '../support/services';
import { lostAndDuplicated, startWriters, supportsIdempotencyKeys } from './append-writers';
import { readAllTexts } from './load-client';
import { FULL } from './reliability-scale';

const WRITERS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

const total = (acked: Map<string, string[]>) =>
  [...acked.values()].reduce((sum, list) => sum + list.length, 0);

describe('faults', () => {
  it('SIGKILL in the middle of JSON-file writes: files stay valid, every acknowledged save is there', async () => {
    const data = backendEnv('jsonfile');
    const dir = data.env.MEMORY_DIR!;
    const server = await startApiProcess(data.env);
    const writers = startWriters(WRITERS, 'crash', async (sessionId, body, headers) => {
      const response = await server.request(`/api/sessions/${sessionId}/messages`, {
        method: 'POST',
        json: body,
        headers,
      });
      return response.status;
    });
    const target = FULL ? 400 : 60;
    await waitUntil(
      () => total(writers.stats.acknowledged) >= target,
      60_000,
      'acknowledged saves',
    );
    await server.kill();
    await writers.stop();

    const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
    expect(files).toHaveLength(WRITERS);
    for (const name of files)
      expect(() => JSON.parse(readFileSync(join(dir, name), 'utf8'))).not.toThrow();
    const backend = jsonFileBackend({ dir });
    const stored = new Map<string, string[]>();
    for (const sessionId of writers.stats.acknowledged.keys()) {
      const entries = await (await backend.open(sessionId)).entries({ limit: 100_000 });
      stored.set(
        sessionId,
        entries.map((entry) => (entry.message.parts[0] as { text: string }).text),
      );
    }
    const result = lostAndDuplicated(writers.stats.acknowledged, stored);

    // The next server on the same folder takes a write at once.
    const next = await startApiProcess(data.env);
    const startedAt = performance.now();
    const first = await next.request('/api/sessions/crash-0/messages', {
      method: 'POST',
      json: { messages: [{ role: 'user', parts: [{ type: 'text', text: 'after the crash' }] }] },
    });
    const firstWriteMs = performance.now() - startedAt;
    await next.stop();
    await data.cleanup();
    console.log(
      `[jsonfile] SIGKILL after ${result.acknowledged} acknowledged saves: ${files.length} files valid, ` +
        `lost ${result.lost}, duplicated ${result.duplicated}, out of order ${result.outOfOrder}; ` +
        `first write after restart ${firstWriteMs.toFixed(0)} ms (status ${first.status})`,
    );
    expect(result).toMatchObject({ lost: 0, duplicated: 0, outOfOrder: 0 });
    expect(first.status).toBe(201);
  }, 120_000);

  describe.each([
    {
      kind: 'postgres' as const,
      start: () => startThrowawayPostgres(),
      prepare: commitSynchronously,
    },
    { kind: 'nats' as const, start: () => startThrowawayNats(), prepare: async () => undefined },
  ])('$kind stopped and restarted under load', ({ kind, start, prepare }) => {
    let service: ThrowawayServer;

    afterAll(async () => {
      await service?.dispose();
    });

    it('answers 503 while down, recovers without a restart, loses and duplicates nothing', async () => {
      service = await start();
      await prepare(service.url);
      const data = backendEnv(kind, { natsUrl: service.url, databaseUrl: service.url });
      const api = await startTestServer({ ...data.env, AUTH_FAILURE_LIMIT: '1000000' });
      const send = async (sessionId: string, body: unknown, headers: Record<string, string>) => {
        const response = await fetch(`${api.server.url}/api/sessions/${sessionId}/messages`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
            'content-type': 'application/json',
            ...headers,
          },
          body: JSON.stringify(body),
        });
        await response.arrayBuffer();
        return response.status;
      };
      const idempotent = await supportsIdempotencyKeys(
        send,
        async (sessionId) =>
          (await readAllTexts(api.server.url, TEST_ADMIN_TOKEN, sessionId)).length,
      );
      const writers = startWriters(WRITERS, `outage-${kind}`, send);
      const before = FULL ? 300 : 40;
      await waitUntil(
        () => total(writers.stats.acknowledged) >= before,
        60_000,
        'saves before the stop',
      );
      await service.stop();
      const downAt = Date.now();
      await waitUntil(() => (writers.stats.statuses.get(503) ?? 0) > 0, 30_000, 'a 503 while down');
      await sleep(FULL ? 3000 : 1000);
      const ackedWhileDown = total(writers.stats.acknowledged);
      await service.start();
      const upAt = Date.now();
      await waitUntil(
        () => total(writers.stats.acknowledged) >= ackedWhileDown + (FULL ? 300 : 40),
        60_000,
        'saves after the restart',
      );
      const recoveredMs = Date.now() - upAt;
      await writers.stop();

      const stored = new Map<string, string[]>();
      for (const sessionId of writers.stats.acknowledged.keys()) {
        stored.set(sessionId, await readAllTexts(api.server.url, TEST_ADMIN_TOKEN, sessionId));
      }
      await api.dispose();
      await data.cleanup();
      const result = lostAndDuplicated(writers.stats.acknowledged, stored);
      const statuses = Object.fromEntries(writers.stats.statuses);
      console.log(
        `[${kind}] outage of ${upAt - downAt} ms under ${WRITERS} writers: answers ${JSON.stringify(statuses)}, ` +
          `${writers.stats.retries} retries, back to acknowledging within ${recoveredMs} ms of the restart; ` +
          `${result.acknowledged} acknowledged, lost ${result.lost}, duplicated ${result.duplicated}, out of order ${result.outOfOrder}` +
          (idempotent
            ? ''
            : ' (this build ignores Idempotency-Key: a retried save that was stored is stored twice)'),
      );
      expect(result).toMatchObject({ lost: 0, outOfOrder: 0 });
      // Without idempotency keys a save stored just before a failed answer is stored again by
      // the retry (issue 10, item 3); with them, never.
      if (idempotent) expect(result.duplicated).toBe(0);
      expect(
        Object.keys(statuses)
          .map(Number)
          .filter((s) => s !== 201 && s !== 503 && s !== 0),
      ).toEqual([]);
    }, 180_000);
  });
});

/**
 * The throwaway PostgreSQL server runs with synchronous_commit off and stops in immediate mode,
 * which drops the last acknowledged commits: a real deployment commits synchronously. A database
 * setting outranks the server's command-line one, for every connection opened from now on.
 */
async function commitSynchronously(url: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET synchronous_commit = on`,
    );
  } finally {
    await client.end();
  }
}
