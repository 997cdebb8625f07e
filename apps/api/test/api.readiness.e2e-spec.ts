/**
 * Readiness follows the backend: 503 (and API calls 503 BACKEND_UNAVAILABLE) while the Postgres or
 * NATS server is stopped, 200 again once it is back. Each test owns a throwaway server.
 */
import {
  startThrowawayNats,
  startThrowawayPostgres,
  type ThrowawayServer,
} from '@agent-memory/test-support/services';
import { Client } from 'pg';
import { postgresBackend } from '@agent-memory/memory/postgres';
import {
  backendEnv,
  startTestServer,
  type BackendEnv,
  type TestServer,
} from './support/api-test-server';

/** Polls `path` until it answers `status`; fails after `timeoutMs`. */
async function waitForStatus(
  api: TestServer,
  path: string,
  status: number,
  timeoutMs = 20000,
): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last: Response | null = null;
  while (Date.now() < deadline) {
    last = await api.request(path);
    if (last.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `${path} still answered ${last?.status} after ${timeoutMs} ms, expected ${status}`,
  );
}

/** Makes what was written so far durable: the throwaway Postgres runs without synchronous commits. */
async function checkpoint(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

const CASES: {
  kind: 'nats' | 'postgres';
  start: () => Promise<ThrowawayServer>;
  beforeStop: (service: ThrowawayServer) => Promise<void>;
}[] = [
  { kind: 'postgres', start: () => startThrowawayPostgres(), beforeStop: (s) => checkpoint(s.url) },
  { kind: 'nats', start: () => startThrowawayNats(), beforeStop: async () => undefined },
];

describe.each(CASES)('readiness on the $kind backend', ({ kind, start, beforeStop }) => {
  let service: ThrowawayServer;
  let data: BackendEnv;
  let api: TestServer;

  beforeAll(async () => {
    service = await start();
    data = backendEnv(kind, { natsUrl: service.url, databaseUrl: service.url });
    api = await startTestServer(data.env);
  });

  afterAll(async () => {
    await api?.dispose();
    await service?.dispose();
  });

  it('turns 503 while the server is down and 200 when it is back', async () => {
    expect(
      (
        await api.request('/api/sessions/s1/messages', {
          method: 'POST',
          json: { messages: [{ role: 'user', parts: [] }] },
        })
      ).status,
    ).toBe(201);
    expect((await api.request('/health/ready')).status).toBe(200);

    await beforeStop(service);
    await service.stop();
    const down = await waitForStatus(api, '/health/ready', 503);
    expect(await down.json()).toMatchObject({
      status: 'error',
      error: { memory: { status: 'down', kind } },
    });
    expect((await api.request('/health/live')).status).toBe(200);
    const call = await api.request('/api/sessions/s1');
    expect(call.status).toBe(503);
    expect(await call.json()).toMatchObject({ statusCode: 503, code: 'BACKEND_UNAVAILABLE' });

    await service.start();
    await waitForStatus(api, '/health/ready', 200);
    const back = await api.request('/api/sessions/s1');
    expect(back.status).toBe(200);
    expect((await back.json()).messages).toBe(1);
  });
});

describe('readiness on an unmigrated PostgreSQL database', () => {
  let data: BackendEnv;
  let api: TestServer;

  beforeAll(async () => {
    data = backendEnv('postgres');
    api = await startTestServer({ ...data.env, MEMORY_PG_ENSURE_SCHEMA: 'false' });
  });

  afterAll(async () => {
    await api?.dispose();
    await data?.cleanup();
  });

  it('answers 503 naming the missing tables and save procedure, and 200 once migrated', async () => {
    const table = data.env.MEMORY_PG_TABLE!;
    const notReady = await api.request('/health/ready');
    expect(notReady.status).toBe(503);
    const body = (await notReady.json()) as {
      error: { memory: { status: string; kind: string; missing: string[]; message: string } };
    };
    expect(body.error.memory).toMatchObject({ status: 'down', kind: 'postgres' });
    const base = table.split('.')[1]!;
    expect(body.error.memory.missing).toEqual(
      expect.arrayContaining([`table ${base}_sessions`, `procedure ${base}_save_group`]),
    );
    expect(body.error.memory.message).toContain(`procedure ${base}_save_group`);
    expect((await api.request('/health/live')).status).toBe(200);

    const migrator = await postgresBackend({ url: data.env.DATABASE_URL!, table });
    await migrator.close();
    const ready = await api.request('/health/ready');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      info: { memory: { status: 'up', kind: 'postgres' } },
    });
  });
});
