/**
 * Erasing one person's data over real HTTP (docs/admin-api.md#routes): `GET /api/sessions?resource=`
 * and `DELETE /api/resources/:resource`, once per backend, and with recall on (hashed embedder,
 * pgvector), where the receipt also counts the vectors.
 */
import { Client } from 'pg';
import type { EraseReceipt, SessionInfo } from '@agent-memory/api-contract';
import {
  ALL_BACKENDS,
  assistantText,
  backendEnv,
  startTestServer,
  userText,
  useTestServer,
  type BackendEnv,
  type TestServer,
} from './support/api-test-server';

/** A session of `resource` with `count` messages. */
async function seed(api: TestServer, id: string, resource: string, count: number): Promise<void> {
  const meta = await api.request(`/api/sessions/${id}/meta`, {
    method: 'PATCH',
    json: { resource, title: `chat ${id}` },
  });
  expect(meta.status).toBe(200);
  const messages = Array.from({ length: count }, (_, i) =>
    i % 2 === 0 ? userText(`${id} says ${i}`) : assistantText(`${id} hears ${i}`),
  );
  expect((await api.append(id, messages)).status).toBe(201);
}

/** Compacts the session (offline summariser) and returns the finished job's id. */
async function compacted(api: TestServer, id: string): Promise<string> {
  const started = await api.request(`/api/sessions/${id}/compact`, {
    method: 'POST',
    json: { force: true },
  });
  expect(started.status).toBe(202);
  const { jobId } = (await started.json()) as { jobId: string };
  for (let i = 0; i < 400; i++) {
    const job = (await (await api.request(`/api/compactions/${jobId}`)).json()) as {
      state: string;
    };
    if (job.state === 'done' || job.state === 'failed') return jobId;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`compaction ${jobId} did not finish`);
}

const ids = async (api: TestServer, query: string): Promise<string[]> =>
  ((await (await api.request(`/api/sessions?${query}`)).json()) as { items: SessionInfo[] }).items
    .map((info) => info.id)
    .sort();

describe.each(ALL_BACKENDS)('erasing a resource on the %s backend', (kind) => {
  const api = useTestServer(kind, { COMPACT_AT_TOKENS: '5000', COMPACT_KEEP_RECENT: '1' });

  it('lists a resource’s sessions, erases them with a receipt, and a second erase finds nothing', async () => {
    await seed(api, 'ana-1', 'ana@example.test', 4);
    await seed(api, 'ana-2', 'ana@example.test', 2);
    await seed(api, 'ben-1', 'ben@example.test', 3);
    expect(await ids(api, 'resource=ana%40example.test')).toEqual(['ana-1', 'ana-2']);
    expect(await ids(api, 'resource=ana%40example.test&search=ana-2')).toEqual(['ana-2']);
    const jobId = await compacted(api, 'ana-1');

    const erased = await api.request('/api/resources/ana%40example.test', { method: 'DELETE' });

    expect(erased.status).toBe(200);
    const receipt = (await erased.json()) as EraseReceipt;
    expect(receipt).toEqual({
      resource: 'ana@example.test',
      sessions: 2,
      messages: expect.any(Number),
      vectors: 0,
      erasedAt: expect.any(String),
    });
    expect(receipt.messages).toBeGreaterThanOrEqual(4);
    expect(new Date(receipt.erasedAt).toISOString()).toBe(receipt.erasedAt);
    expect((await api.request('/api/sessions/ana-1')).status).toBe(404);
    expect((await api.request('/api/sessions/ana-2')).status).toBe(404);
    // The compaction job held the summary of the erased messages: it is gone too.
    expect((await api.request(`/api/compactions/${jobId}`)).status).toBe(404);
    expect(await ids(api, 'resource=ana%40example.test')).toEqual([]);
    const ben = (await (await api.request('/api/sessions/ben-1')).json()) as SessionInfo;
    expect(ben).toMatchObject({ messages: 3, meta: { resource: 'ben@example.test' } });

    const again = await api.request('/api/resources/ana%40example.test', { method: 'DELETE' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ sessions: 0, messages: 0, vectors: 0 });
  });

  it('refuses a bad resource with 400 naming it, and erases nothing', async () => {
    await seed(api, 'kept-1', 'kept', 1);
    for (const path of ['/api/resources/a%00b', `/api/resources/${'x'.repeat(4097)}`]) {
      const response = await api.request(path, { method: 'DELETE' });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { code: string; message: string; field: string };
      expect(body).toMatchObject({ statusCode: 400, code: 'INVALID_QUERY', field: 'resource' });
      expect(body.message).toMatch(/resource/);
    }
    const list = await api.request('/api/sessions?resource=a%00b');
    expect(list.status).toBe(400);
    expect(await list.json()).toMatchObject({ field: 'resource' });
    // Empty, as erase and export refuse it: it would list every session.
    for (const query of ['resource=', 'resource=&limit=5']) {
      const empty = await api.request(`/api/sessions?${query}`);
      expect([query, empty.status]).toEqual([query, 400]);
      expect(await empty.json()).toMatchObject({ code: 'INVALID_QUERY', field: 'resource' });
    }
    expect((await api.request('/api/sessions/kept-1')).status).toBe(200);
  });

  it('needs the admin token', async () => {
    await seed(api, 'guarded-1', 'guarded', 1);
    const response = await api.request('/api/resources/guarded', { method: 'DELETE', token: null });
    expect(response.status).toBe(401);
    expect((await api.request('/api/sessions/guarded-1')).status).toBe(200);
  });
});

describe('erasing a resource with recall on (hashed embedder, pgvector)', () => {
  let data: BackendEnv;
  let api: TestServer;
  let vectorTable: string;
  beforeAll(async () => {
    data = backendEnv('postgres');
    vectorTable = `${data.env.MEMORY_PG_TABLE!.split('.')[0]}.erase_vectors`;
    api = await startTestServer({
      ...data.env,
      MEMORY_RECALL_EMBEDDER: 'hashed',
      MEMORY_RECALL_STORE: 'pgvector',
      MEMORY_RECALL_PG_TABLE: vectorTable,
    });
  });
  afterAll(async () => {
    await api?.dispose();
    await data.cleanup();
  });

  /** Rows of the vector table for `resource`, read straight from PostgreSQL. */
  async function vectorRows(resource: string): Promise<number> {
    const client = new Client({ connectionString: data.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${vectorTable} WHERE resource = $1`,
        [resource],
      );
      return Number(rows[0]!.n);
    } finally {
      await client.end();
    }
  }

  it('counts the recall vectors it removed, and none are left', async () => {
    await seed(api, 'cy-1', 'cy', 4);
    // Indexing runs off the request path: erase once the vectors are stored.
    const deadline = Date.now() + 15_000;
    while ((await vectorRows('cy')) < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stored = await vectorRows('cy');
    expect(stored).toBeGreaterThanOrEqual(4);

    const response = await api.request('/api/resources/cy', { method: 'DELETE' });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource: 'cy',
      sessions: 1,
      messages: 4,
      vectors: stored,
    });
    expect(await vectorRows('cy')).toBe(0);
  });
});
