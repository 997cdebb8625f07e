/**
 * Load held, per backend: autocannon on loopback against an admin server process, appends and
 * reads on one session and on many sessions (1,000 at full size, 200 in CI), bounded in time.
 * Zero errors on every backend (NATS included: its group commit serialises writers on one session),
 * and every acknowledged append read back exactly once, in its connection's order. Prints
 * throughput and p50/p99.
 * Small inside `npm test`; `npm run test:reliability` runs it at full size.
 */
import type { BackendKind } from '@agent-memory/memory';
import { startApiProcess, type ApiProcess } from '../../apps/api/test/support/api-process';
import {
  backendEnv,
  TEST_ADMIN_TOKEN,
  type BackendEnv,
} from '../../apps/api/test/support/api-test-server';
import { checkReadBack, readAllTexts, runLoad, type LoadResult } from './load-client';
import { LOAD_CONNECTIONS, LOAD_DURATION_S, MANY_SESSIONS } from './reliability-scale';

const rows: string[] = [];

afterAll(() => {
  console.log(
    [
      `load: ${LOAD_DURATION_S} s per scenario, ${LOAD_CONNECTIONS} connections, loopback`,
      '| backend | scenario | requests | req/s | p50 ms | p99 ms | errors | acked | missing | duplicated | out of order |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n'),
  );
});

async function seed(server: ApiProcess, prefix: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const id = `${prefix}-${next++}`;
      const response = await server.request(`/api/sessions/${id}/messages`, {
        method: 'POST',
        json: { messages: [{ role: 'user', parts: [{ type: 'text', text: 'seed' }] }] },
      });
      if (response.status !== 201) throw new Error(`seeding ${id}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

describe.each(['simple', 'jsonfile', 'postgres', 'nats'] as BackendKind[])(
  'load on the %s backend',
  (kind) => {
    let data: BackendEnv;
    let server: ApiProcess;

    beforeAll(async () => {
      data = backendEnv(kind);
      server = await startApiProcess({
        ...data.env,
        AUTH_FAILURE_LIMIT: '1000000',
        // The in-process store keeps 10,000 messages a session by default, evicting the oldest.
        MEMORY_SIMPLE_CAPACITY: '1000000',
      });
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await data?.cleanup();
    });

    function report(result: LoadResult, readBack?: ReturnType<typeof checkReadBack>): void {
      rows.push(
        `| ${kind} | ${result.scenario} | ${result.requests} | ${result.throughputPerS} | ${result.p50Ms} | ${result.p99Ms} | ${result.errors}${result.failedStatuses ? ` (${result.failedStatuses})` : ''} | ${readBack?.acknowledged ?? '-'} | ${readBack?.missing ?? '-'} | ${readBack?.duplicated ?? '-'} | ${readBack?.outOfOrder ?? '-'} |`,
      );
    }

    it.each([
      ['append, 1 session', 1],
      [`append, ${MANY_SESSIONS} sessions`, MANY_SESSIONS],
    ])(
      '%s: no errors, every acknowledged append once and in order',
      async (scenario, sessions) => {
        const prefix = `append${sessions}`;
        const result = await runLoad({
          url: server.url,
          token: TEST_ADMIN_TOKEN,
          scenario,
          mode: 'append',
          sessions,
          prefix,
          durationS: LOAD_DURATION_S,
          connections: LOAD_CONNECTIONS,
        });
        // Every session an acknowledged append went to (the text carries its request number).
        const touched = new Set<number>();
        for (const texts of result.acknowledged.values()) {
          for (const text of texts) touched.add(Number(text.split('#')[2]) % sessions);
        }
        const stored: string[] = [];
        for (const i of [...touched].sort((x, y) => x - y)) {
          stored.push(...(await readAllTexts(server.url, TEST_ADMIN_TOKEN, `${prefix}-${i}`)));
        }
        // Order is per session: check each connection's texts within the sessions they went to.
        const readBack = checkReadBack(
          sessions === 1 ? result.acknowledged : perSession(result.acknowledged, sessions),
          stored,
        );
        report(result, readBack);
        expect(result.requests).toBeGreaterThan(0);
        expect(result.errors).toBe(0);
        expect(readBack).toEqual({
          acknowledged: result.requests,
          missing: 0,
          duplicated: 0,
          outOfOrder: 0,
        });
      },
      120_000,
    );

    it.each([
      ['read, 1 session', 1],
      [`read, ${MANY_SESSIONS} sessions`, MANY_SESSIONS],
    ])(
      '%s: no errors',
      async (scenario, sessions) => {
        const prefix = `read${sessions}`;
        await seed(server, prefix, sessions);
        const result = await runLoad({
          url: server.url,
          token: TEST_ADMIN_TOKEN,
          scenario,
          mode: 'read',
          sessions,
          prefix,
          durationS: LOAD_DURATION_S,
          connections: LOAD_CONNECTIONS,
        });
        report(result);
        expect(result.requests).toBeGreaterThan(0);
        expect(result.errors).toBe(0);
      },
      120_000,
    );
  },
);

/**
 * With many sessions a connection's texts land in different sessions, whose logs are read one
 * after another: order is only defined within one session, so split each connection's list by
 * session (the text carries the request number, and the session is that number modulo `sessions`).
 */
function perSession(acknowledged: Map<number, string[]>, sessions: number): Map<number, string[]> {
  const split = new Map<number, string[]>();
  let key = 0;
  for (const texts of acknowledged.values()) {
    const bySession = new Map<number, string[]>();
    for (const text of texts) {
      const n = Number(text.split('#')[2]);
      const list = bySession.get(n % sessions) ?? [];
      list.push(text);
      bySession.set(n % sessions, list);
    }
    for (const list of bySession.values()) split.set(key++, list);
  }
  return split;
}
