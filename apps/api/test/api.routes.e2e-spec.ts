/**
 * Every route of docs/admin-api.md over real HTTP, once per backend: the same table-driven suite.
 */
import type { SessionInfo } from '@agent-memory/memory';
import { ALL_BACKENDS, assistantText, userText, useTestServer } from './support/api-test-server';

describe.each(ALL_BACKENDS)('admin API on the %s backend', (kind) => {
  const api = useTestServer(kind, {
    COMPACT_AT_TOKENS: '5000',
    COMPACT_KEEP_RECENT: '2',
  });

  const append = (id: string, messages: unknown[]) => api.append(id, messages);

  describe('auth', () => {
    it('answers 401 as JSON without a token and with a wrong one, 200 with the right one', async () => {
      const missing = await api.request('/api/sessions', { token: null });
      expect(missing.status).toBe(401);
      expect(await missing.json()).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });

      const wrong = await api.request('/api/sessions', { token: 'not-the-admin-token' });
      expect(wrong.status).toBe(401);
      expect((await wrong.json()).code).toBe('UNAUTHORIZED');

      const notBearer = await api.request('/api/sessions', {
        token: null,
        headers: { authorization: 'Basic abc' },
      });
      expect(notBearer.status).toBe(401);

      expect((await api.request('/api/sessions')).status).toBe(200);
    });

    it('guards every /api route, not only the list', async () => {
      for (const [method, path] of [
        ['GET', '/api/sessions/s1'],
        ['GET', '/api/sessions/s1/messages'],
        ['POST', '/api/sessions/s1/messages'],
        ['PATCH', '/api/sessions/s1/meta'],
        ['DELETE', '/api/sessions/s1'],
        ['POST', '/api/sessions/s1/compact'],
        ['GET', '/api/compactions/j1'],
      ]) {
        const response = await api.request(path!, { method, token: null });
        expect([method, path, response.status]).toEqual([method, path, 401]);
      }
    });

    it('leaves the health probes open', async () => {
      expect((await api.request('/health/live', { token: null })).status).toBe(200);
      const ready = await api.request('/health/ready', { token: null });
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: 'ok',
        info: { memory: { status: 'up', kind } },
      });
    });
  });

  describe('sessions', () => {
    it('appends messages and shows the session with its context size and threshold', async () => {
      const created = await append('chat-1', [
        userText('Plan a trip to Lisbon'),
        assistantText('Sure, when?'),
      ]);
      expect(created.status).toBe(201);
      const stored = await created.json();
      expect(stored).toEqual({
        appended: 2,
        first: expect.any(Number),
        last: stored.first + 1,
        replayed: false,
      });

      const response = await api.request('/api/sessions/chat-1');
      expect(response.status).toBe(200);
      const detail = await response.json();
      expect(detail).toMatchObject({
        id: 'chat-1',
        messages: 2,
        stored: 2,
        hasSnapshot: false,
        snapshotUpTo: null,
        meta: {},
        snapshot: null,
        compactAt: 5000,
        lastCompaction: null,
      });
      expect(detail.tokens).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(detail.updatedAt))).toBe(false);

      await append('chat-1', [
        userText('In May, for a week, with a long description of what we like to do'),
      ]);
      const after = await (await api.request('/api/sessions/chat-1')).json();
      expect(after.messages).toBe(3);
      expect(after.tokens).toBeGreaterThan(detail.tokens);
    });

    it('accepts a message in Phero shape and stores it in ours', async () => {
      const response = await append('phero-1', [
        { Role: 'user', Parts: [{ Type: 'text', Text: 'hi' }], ToolCalls: null },
      ]);
      expect(response.status).toBe(201);
      const page = await (await api.request('/api/sessions/phero-1/messages')).json();
      expect(page.items.map((e: { message: unknown }) => e.message)).toEqual([userText('hi')]);
    });

    it("pages through a session's messages oldest first with cursors", async () => {
      const texts = ['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6'];
      await append(
        'paged',
        texts.map((text, i) => (i % 2 ? assistantText(text) : userText(text))),
      );
      const seen: string[] = [];
      const cursors: number[] = [];
      let after: number | null = null;
      let pages = 0;
      do {
        const query: string = after === null ? '?limit=3' : `?limit=3&after=${after}`;
        const response = await api.request(`/api/sessions/paged/messages${query}`);
        expect(response.status).toBe(200);
        const page = (await response.json()) as {
          items: { cursor: number; covered: boolean; message: { parts: { text: string }[] } }[];
          next: number | null;
        };
        expect(page.items.length).toBeLessThanOrEqual(3);
        for (const item of page.items) {
          seen.push(item.message.parts[0]!.text);
          cursors.push(item.cursor);
          expect(item.covered).toBe(false);
        }
        after = page.next;
        pages += 1;
      } while (after !== null && pages < 10);
      expect(seen).toEqual(texts);
      expect(pages).toBe(3);
      expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
      expect(new Set(cursors).size).toBe(cursors.length);
    });

    it('sets and removes metadata, and finds a session by its title', async () => {
      const set = await api.request('/api/sessions/meta-1/meta', {
        method: 'PATCH',
        json: { title: 'Lisbon Trip', owner: 'ana' },
      });
      expect(set.status).toBe(200);
      expect((await set.json()).meta).toEqual({ title: 'Lisbon Trip', owner: 'ana' });

      const found = await (await api.request('/api/sessions?search=lisbon%20t')).json();
      expect(found.items.map((s: SessionInfo) => s.id)).toEqual(['meta-1']);

      const removed = await api.request('/api/sessions/meta-1/meta', {
        method: 'PATCH',
        json: { owner: '' },
      });
      expect((await removed.json()).meta).toEqual({ title: 'Lisbon Trip' });
    });

    it('pages through more sessions than one page, newest first, each once', async () => {
      const ids = Array.from({ length: 7 }, (_, i) => `many-${i}`);
      for (const id of ids) await append(id, [userText(`hello ${id}`)]);
      const listed: SessionInfo[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const query: string = `?search=many-&limit=3${after ? `&after=${encodeURIComponent(after)}` : ''}`;
        const page = (await (await api.request(`/api/sessions${query}`)).json()) as {
          items: SessionInfo[];
          next: string | null;
        };
        listed.push(...page.items);
        after = page.next;
        pages += 1;
      } while (after !== null && pages < 10);
      expect(pages).toBe(3);
      expect(listed.map((s) => s.id).sort()).toEqual([...ids].sort());
      const times = listed.map((s) => s.updatedAt);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('deletes a session: 204, then 404', async () => {
      await append('doomed', [userText('bye')]);
      const deleted = await api.request('/api/sessions/doomed', { method: 'DELETE' });
      expect(deleted.status).toBe(204);
      expect(await deleted.text()).toBe('');
      const gone = await api.request('/api/sessions/doomed');
      expect(gone.status).toBe(404);
      expect(await gone.json()).toMatchObject({ statusCode: 404, code: 'SESSION_NOT_FOUND' });
      expect((await api.request('/api/sessions/doomed', { method: 'DELETE' })).status).toBe(404);
    });
  });

  describe('compaction', () => {
    it('validates the compact body', async () => {
      await append('to-compact-2', [userText('one')]);
      const response = await api.request('/api/sessions/to-compact-2/compact', {
        method: 'POST',
        json: { force: 'yes' },
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_BODY', field: 'force' });
      const empty = await api.request('/api/sessions/to-compact-2/compact', { method: 'POST' });
      expect(empty.status).toBe(202);
    });
  });

  describe('errors', () => {
    it('answers 404 for an unknown session on every read', async () => {
      for (const path of ['/api/sessions/nobody', '/api/sessions/nobody/messages']) {
        const response = await api.request(path);
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ code: 'SESSION_NOT_FOUND' });
      }
      const compact = await api.request('/api/sessions/nobody/compact', {
        method: 'POST',
        json: {},
      });
      expect(compact.status).toBe(404);
    });

    it('answers 400 INVALID_SESSION_ID for an id the backends refuse', async () => {
      for (const id of ['.hidden', 'a..b', 'x'.repeat(129), 'sp%20ace']) {
        const response = await api.request(`/api/sessions/${id}`);
        expect([id, response.status]).toEqual([id, 400]);
        expect((await response.json()).code).toBe('INVALID_SESSION_ID');
      }
      expect((await append('no%20spaces', [userText('x')])).status).toBe(400);
    });

    it('names the offending field of a bad message and writes nothing', async () => {
      const response = await append('strict', [userText('fine'), { role: 'robot', parts: [] }]);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        statusCode: 400,
        code: 'INVALID_MESSAGE',
        field: 'messages[1].role',
      });
      expect((await api.request('/api/sessions/strict')).status).toBe(404);

      const badPart = await append('strict', [{ role: 'user', parts: [{ type: 'video' }] }]);
      expect((await badPart.json()).field).toBe('messages[0].parts[0].type');
    });

    it('limits the batch and names the field of a bad body', async () => {
      const empty = await append('strict', []);
      expect(empty.status).toBe(400);
      expect(await empty.json()).toMatchObject({ code: 'INVALID_BODY', field: 'messages' });

      const tooMany = await append(
        'strict',
        Array.from({ length: 501 }, () => userText('x')),
      );
      expect((await tooMany.json()).field).toBe('messages');

      const notJson = await api.request('/api/sessions/strict/messages', {
        method: 'POST',
        body: '{"messages": [',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({
        statusCode: 400,
        code: 'INVALID_BODY',
        message: expect.stringMatching(/JSON/),
      });

      const tooLarge = await append('strict', [userText('x'.repeat(5 * 1024 * 1024))]);
      expect(tooLarge.status).toBe(413);
      expect((await tooLarge.json()).code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('wants meta values as strings', async () => {
      const response = await api.request('/api/sessions/m/meta', {
        method: 'PATCH',
        json: { title: 42 },
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_META', field: 'title' });
      const badKey = await api.request('/api/sessions/m/meta', {
        method: 'PATCH',
        json: { 'no spaces': 'x' },
      });
      expect((await badKey.json()).code).toBe('INVALID_META');
    });

    it('names the bad query parameter', async () => {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=501', 'limit'],
        ['limit=abc', 'limit'],
        ['after=not-a-token', 'after'],
      ]) {
        const response = await api.request(`/api/sessions?${query}`);
        expect([query, response.status]).toEqual([query, 400]);
        expect(await response.json()).toMatchObject({ code: 'INVALID_QUERY', field });
      }
      await append('q', [userText('x')]);
      const badCursor = await api.request('/api/sessions/q/messages?after=-1');
      expect(await badCursor.json()).toMatchObject({ code: 'INVALID_QUERY', field: 'after' });
    });

    it('answers 404 JSON for an unknown compaction job and an unknown route', async () => {
      const job = await api.request('/api/compactions/no-such-job');
      expect(job.status).toBe(404);
      expect((await job.json()).code).toBe('JOB_NOT_FOUND');
      const route = await api.request('/api/nothing-here');
      expect(route.status).toBe(404);
      expect(await route.json()).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    });
  });

  it('serves the OpenAPI document with every route', async () => {
    const response = await api.request('/api/docs-json', { token: null });
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/audit',
        '/api/compactions/{jobId}',
        '/api/context-tokens',
        '/api/export',
        '/api/import',
        '/api/info',
        '/api/roles',
        '/api/resources/{resource}',
        '/api/retention',
        '/api/retention/sweep',
        '/api/sessions',
        '/api/sessions/{id}',
        '/api/sessions/{id}/clear',
        '/api/sessions/{id}/compact',
        '/api/sessions/{id}/context',
        '/api/sessions/{id}/export',
        '/api/sessions/{id}/transcript',
        '/api/sessions/{id}/messages',
        '/api/sessions/{id}/meta',
        '/api/sessions/{id}/recall',
        '/health/live',
        '/health/ready',
        '/mcp',
      ].sort(),
    );
    expect((await api.request('/api/docs', { token: null })).headers.get('content-type')).toMatch(
      /text\/html/,
    );
  });
});
