/**
 * `GET /api/sessions/:id/recall?q=` over real HTTP: on the admin server as configured by default
 * (no recall: 501), on the admin server with recall turned on from the environment (hashed
 * embedder, pgvector), and on the same controller, guard and error filter over a recall backend.
 */
import type { INestApplication } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  assistantMessage,
  MEMORY_BACKEND,
  MemoryModule,
  simpleBackend,
  userMessage,
} from '@agent-memory/memory';
import {
  HashedNgramEmbedder,
  InMemoryVectorStore,
  type RecallBackend,
} from '@agent-memory/memory/rag';
import { AdminToken } from '../src/auth/admin-token';
import { AdminTokens } from '../src/auth/admin-tokens';
import { AdminTokenGuard } from '../src/auth/admin-token.guard';
import type { RecallView } from '@agent-memory/api-contract';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { ApiExceptionFilter } from '../src/errors/api-exception.filter';
import { RecallController } from '../src/recall/recall.controller';
import { RecallService } from '../src/recall/recall.service';
import {
  backendEnv,
  startTestServer,
  TEST_ADMIN_TOKEN,
  type BackendEnv,
  type TestServer,
} from './support/api-test-server';
import { RecordingLogger } from './support/recording-logger';
import {
  startFakeEmbeddings,
  type FakeEmbeddings,
} from '@agent-memory/test-support/fake-embeddings.server';

describe('GET /api/sessions/:id/recall on a server without recall', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer({ MEMORY_BACKEND: 'simple' });
  });
  afterAll(() => api.dispose());

  it('answers 501 RECALL_NOT_CONFIGURED, and 401 without the token', async () => {
    const res = await api.request('/api/sessions/s1/recall?q=hello');
    expect(res.status).toBe(501);
    expect(await res.json()).toMatchObject({ statusCode: 501, code: 'RECALL_NOT_CONFIGURED' });
    expect((await api.request('/api/sessions/s1/recall?q=x', { token: null })).status).toBe(401);
  });

  it('the 501 names the variable that turns recall on', async () => {
    const res = await api.request('/api/sessions/s1/recall?q=hello');
    expect(((await res.json()) as { message: string }).message).toMatch(/MEMORY_RECALL_EMBEDDER/);
  });
});

describe('GET /api/sessions/:id/recall with recall from the environment (hashed, pgvector)', () => {
  let data: BackendEnv;
  let api: TestServer;
  let vectorTable: string;
  beforeAll(async () => {
    data = backendEnv('postgres');
    vectorTable = `${data.env.MEMORY_PG_TABLE!.split('.')[0]}.recall_vectors`;
    api = await startTestServer({
      ...data.env,
      MEMORY_RECALL_EMBEDDER: 'hashed',
      MEMORY_RECALL_STORE: 'pgvector',
      MEMORY_RECALL_PG_TABLE: vectorTable,
      MEMORY_RECALL_TOP_K: '1',
      COMPACT_KEEP_RECENT: '1',
    });
  });
  afterAll(async () => {
    await api?.dispose();
    await data.cleanup();
  });

  const append = (id: string, messages: unknown[]) =>
    api.request(`/api/sessions/${id}/messages`, { method: 'POST', json: { messages } });

  /** Asks until the background indexer has embedded what was saved (it runs off the request path). */
  async function recallOnceIndexed(session: string, q: string): Promise<RecallView> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await api.request(`/api/sessions/${session}/recall?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as RecallView;
      if (body.ranges.length > 0 || Date.now() > deadline) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Compacts the session (offline summariser), so that its older messages leave the context. */
  async function compactNow(session: string): Promise<void> {
    const started = await api.request(`/api/sessions/${session}/compact`, {
      method: 'POST',
      json: { force: true },
    });
    expect(started.status).toBe(202);
    const { jobId } = (await started.json()) as { jobId: string };
    for (let i = 0; i < 400; i++) {
      const job = (await (await api.request(`/api/compactions/${jobId}`)).json()) as {
        state: string;
      };
      if (job.state === 'done') return;
      expect(job.state).not.toBe('failed');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`compaction ${jobId} did not finish`);
  }

  it('recalls the right saved message, with its neighbours, from the pgvector table', async () => {
    expect(
      (
        await append('trip', [
          // The offline summariser pins the first user message (the goal): recall skips it.
          userMessage('help me get ready for a trip'),
          assistantMessage('sure, where to?'),
          userMessage('my passport number is ZX-4471 and it expires in 2031'),
          assistantMessage('noted'),
          userMessage('book a table for two at the harbour restaurant'),
          assistantMessage('booked for eight pm'),
        ])
      ).status,
    ).toBe(201);
    const other = [
      userMessage('hi'),
      // Long enough that a summary of it makes the context smaller (else compaction saves nothing).
      assistantMessage(
        'passport renewal forms are attached. Fill in pages two and three in block capitals, ' +
          'sign the last page and bring two recent photos to the office. The office is open on ' +
          'weekdays from nine to five, the fee can be paid by card or in cash, and the new ' +
          'document usually arrives by post within three weeks of the appointment.',
      ),
    ];
    expect((await append('other', other)).status).toBe(201);
    // Recall quotes what left the context only (the tail is already sent to the model).
    await compactNow('trip');
    const body = await recallOnceIndexed('trip', 'when does the passport expire');
    expect(body.ranges).toHaveLength(1);
    expect(body.ranges[0]!.session).toBe('trip');
    expect(body.ranges[0]!.messages.map((m) => [m.role, m.text])).toEqual([
      ['assistant', 'sure, where to?'],
      ['user', 'my passport number is ZX-4471 and it expires in 2031'],
      ['assistant', 'noted'],
    ]);
    expect(body.message).toContain('ZX-4471');
    const [schema, table] = vectorTable.split('.');
    const rows = await new TestSchemas('unused', data.env.DATABASE_URL).query<{ n: string }>(
      `SELECT count(*) AS n FROM "${schema}"."${table}" WHERE session_id = 'trip'`,
    );
    expect(Number(rows[0]!.n)).toBe(6);
  });

  it('deleting the session deletes its vectors: nothing is recalled from it afterwards', async () => {
    await append('other', [userMessage('thanks')]);
    await compactNow('other');
    expect((await recallOnceIndexed('other', 'passport')).ranges).toHaveLength(1);
    expect((await api.request('/api/sessions/other', { method: 'DELETE' })).status).toBe(204);
    const [schema, table] = vectorTable.split('.');
    const rows = await new TestSchemas('unused', data.env.DATABASE_URL).query<{ n: string }>(
      `SELECT count(*) AS n FROM "${schema}"."${table}" WHERE session_id = 'other'`,
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });
});

describe('GET /api/sessions/:id/recall with recall configured', () => {
  let app: INestApplication;
  let url: string;
  const get = (path: string) =>
    fetch(`${url}${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });

  beforeAll(async () => {
    const embedder = new HashedNgramEmbedder();
    const moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({
          backend: simpleBackend({ capacity: 100 }),
          recall: { embedder, store: new InMemoryVectorStore(embedder.dimensions), topK: 1 },
        }),
      ],
      controllers: [RecallController],
      providers: [
        RecallService,
        AdminTokenGuard,
        { provide: AdminTokens, useValue: AdminTokens.only(new AdminToken(TEST_ADMIN_TOKEN)) },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
    const backend = app.get<RecallBackend>(MEMORY_BACKEND);
    const session = await backend.open('trip');
    await session.save([
      userMessage('the hotel booking reference is QX-778'),
      assistantMessage('saved'),
      userMessage('thanks'),
      assistantMessage('anytime'),
    ]);
    await backend.recallIndexer.whenIdle();
    const { tail } = await session.loadSnapshot();
    await session.saveSnapshot({ summary: 'hotel chat' }, tail[1]!.cursor, null);
  });
  afterAll(() => app.close());

  it('shows what retrieve(q) would add: the ranges and the system message text', async () => {
    const res = await get(
      '/api/sessions/trip/recall?q=' + encodeURIComponent('hotel booking reference'),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as RecallView;
    expect(body.query).toBe('hotel booking reference');
    expect(body.ranges).toHaveLength(1);
    expect(body.ranges[0]!.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'the hotel booking reference is QX-778'],
      ['assistant', 'saved'],
    ]);
    expect(body.ranges[0]!.messages[0]!.score).toBeGreaterThan(0.3);
    expect(body.message).toContain('QX-778');
  });

  it('a blank query recalls nothing; a missing one is 400; an unknown session 404', async () => {
    const blank = (await (await get('/api/sessions/trip/recall?q=%20')).json()) as RecallView;
    expect(blank).toEqual({ query: ' ', ranges: [], message: null });
    const missing = await get('/api/sessions/trip/recall');
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 'INVALID_QUERY', field: 'q' });
    const unknown = await get('/api/sessions/nobody/recall?q=x');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});

describe('GET /api/sessions/:id/recall against a slow or broken embedding model', () => {
  let embeddings: FakeEmbeddings;
  let api: TestServer;
  const logger = new RecordingLogger({ logLevels: ['error', 'warn', 'log'] });
  beforeAll(async () => {
    embeddings = await startFakeEmbeddings(32);
    api = await startTestServer(
      {
        MEMORY_BACKEND: 'simple',
        MEMORY_RECALL_EMBEDDER: 'openai',
        MEMORY_RECALL_EMBEDDER_URL: embeddings.baseUrl,
        MEMORY_RECALL_EMBEDDER_MODEL: 'embedder-under-test',
        MEMORY_RECALL_EMBEDDER_DIMENSIONS: '32',
        MEMORY_RECALL_QUERY_TIMEOUT_MS: '1000',
      },
      { logger },
    );
    const saved = await api.append('s1', [
      { role: 'user', parts: [{ type: 'text', text: 'my cat is called Miso' }] },
    ]);
    expect(saved.status).toBe(201);
    // The save's indexing request is answered before any failure is scripted.
    while (embeddings.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    expect((await api.request('/api/sessions/s1/recall?q=cat')).status).toBe(200);
  });
  afterAll(async () => {
    await api?.dispose();
    await embeddings?.close();
  });

  const port = (): string => new URL(embeddings.baseUrl).port;

  it.each([
    ['hangs', () => void embeddings.holdNext()],
    ['asks to retry in an hour', () => embeddings.failNext(429, { retryAfterSeconds: 3600 })],
    [
      'fails with its own text',
      () => {
        for (let i = 0; i < 4; i++) {
          embeddings.failNext(500, { body: '{"error":{"message":"upstream secret text"}}' });
        }
      },
    ],
    ['answers 8 MB', () => embeddings.replyRawNext(`{"data":[${'0.5,'.repeat(2_000_000)}0]}`)],
  ])(
    'answers 503 EMBEDDING_FAILED naming no URL or upstream text when the model %s',
    async (_label, script) => {
      script();
      const response = await api.request('/api/sessions/s1/recall?q=what%20is%20my%20cat%20called');
      const text = await response.text();
      expect(response.status).toBe(503);
      expect(JSON.parse(text)).toEqual({
        statusCode: 503,
        code: 'EMBEDDING_FAILED',
        message: expect.stringMatching(/recall/),
      });
      for (const secret of [port(), '127.0.0.1', 'upstream secret', 'embedder-under-test']) {
        expect(text).not.toContain(secret);
      }
    },
  );

  it('counts each failed query and logs it at warn', async () => {
    const metrics = await (await api.request('/metrics')).text();
    expect(metrics).toMatch(/agent_memory_recall_failures_total\{operation="query"\} [1-9]/);
    expect(logger.lines.join('\n')).toMatch(/warn .*upstream secret text/);
  });
});
