/**
 * `GET /api/sessions/:id/recall?q=` over real HTTP: on the admin server as configured by default
 * (no recall: 501), and on the same controller, guard and error filter over a recall backend.
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
import { AdminTokenGuard } from '../src/auth/admin-token.guard';
import type { RecallView } from '../src/contract/recall-api.types';
import { ApiExceptionFilter } from '../src/errors/api-exception.filter';
import { RecallController } from '../src/recall/recall.controller';
import { RecallService } from '../src/recall/recall.service';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support/api-test-server';

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
        { provide: AdminToken, useValue: new AdminToken(TEST_ADMIN_TOKEN) },
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
