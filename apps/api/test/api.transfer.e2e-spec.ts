/**
 * `GET /api/export`, `GET /api/sessions/:id/export?format=jsonl` and `POST /api/import`: sessions
 * leave one server's store as JSON Lines and enter another's (JSON files → PostgreSQL), the import
 * body is read as a stream behind the token gate (no JSON parser limit applies to it), and a bad
 * line or a conflicting session is answered with the line and field it concerns.
 */
import { createHash } from 'node:crypto';
import { userText, assistantText, useTestServer, type TestServer } from './support/api-test-server';

const NDJSON = 'application/x-ndjson';

function importBody(api: TestServer, body: string, headers: Record<string, string> = {}) {
  return api.request('/api/import', {
    method: 'POST',
    body,
    headers: { 'content-type': NDJSON, ...headers },
  });
}

/** A line without what belongs to the store: cursors and times. */
function portable(line: string) {
  const { id, meta, snapshot, entries } = JSON.parse(line) as {
    id: string;
    meta: Record<string, string>;
    snapshot: { summary: string } | null;
    entries: { message: unknown }[];
  };
  return { id, meta, summary: snapshot?.summary ?? null, messages: entries.map((e) => e.message) };
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);

describe('moving sessions between two servers', () => {
  const source = useTestServer('jsonfile');
  const target = useTestServer('postgres');

  beforeAll(async () => {
    await source.append('one', [userText('hello'), assistantText('hi')]);
    await source.append('two', [userText('weather?')]);
    await source.request('/api/sessions/two/meta', {
      method: 'PATCH',
      json: { title: 'Weather', resource: 'ann' },
    });
  });

  it('exports every session as JSON Lines, and one session as its line', async () => {
    const all = await source.request('/api/export');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toContain(NDJSON);
    const lines = (await all.text()).trimEnd().split('\n');
    expect(lines.map(portable).sort(byId)).toEqual([
      { id: 'one', meta: {}, summary: null, messages: [userText('hello'), assistantText('hi')] },
      {
        id: 'two',
        meta: { title: 'Weather', resource: 'ann' },
        summary: null,
        messages: [userText('weather?')],
      },
    ]);

    const one = await source.request('/api/sessions/two/export?format=jsonl');
    expect(one.headers.get('content-type')).toContain(NDJSON);
    expect(await one.text()).toBe(lines.find((line) => portable(line).id === 'two')! + '\n');
    expect((await source.request('/api/sessions/nobody/export?format=jsonl')).status).toBe(404);

    const ann = await (await source.request('/api/export?resource=ann')).text();
    expect(
      ann
        .trimEnd()
        .split('\n')
        .map((line) => portable(line).id),
    ).toEqual(['two']);
  });

  it('imports them into another store once, however often the body is sent', async () => {
    const body = await (await source.request('/api/export')).text();
    const first = await importBody(target, body);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ imported: 2, skipped: 0 });
    expect(await (await importBody(target, body)).json()).toEqual({ imported: 0, skipped: 2 });
    const moved = (await (await target.request('/api/export')).text()).trimEnd().split('\n');
    expect(moved.map(portable).sort(byId)).toEqual(
      body.trimEnd().split('\n').map(portable).sort(byId),
    );
    const page = await (await target.request('/api/sessions/one/messages')).json();
    expect(page.items).toHaveLength(2);
  });

  it('reads a body larger than the JSON limit as a stream', async () => {
    const big = 'x'.repeat(100_000);
    const lines = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({ id: `big-${i}`, entries: [{ cursor: 1, message: userText(big) }] }),
    );
    const body = lines.join('\n') + '\n';
    expect(body.length).toBeGreaterThan(4 * 1024 * 1024);
    const answer = await importBody(target, body);
    expect(await answer.json()).toEqual({ imported: 60, skipped: 0 });
  });

  it('names the line and field of a bad line, keeping the lines before it', async () => {
    const good = JSON.stringify({ id: 'before-bad', entries: [], meta: { title: 'kept' } });
    const answer = await importBody(target, `${good}\n{"id":"x","entries":[{"cursor":"one"}]}\n`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      code: 'INVALID_IMPORT_LINE',
      message: expect.stringContaining('import line 2, field entries[0].cursor'),
    });
    expect((await target.request('/api/sessions/before-bad')).status).toBe(200);
  });

  it('answers 409 for a session the store holds with other messages', async () => {
    await target.append('clash', [userText('mine')]);
    const line = JSON.stringify({
      id: 'clash',
      entries: [{ cursor: 1, message: userText('theirs') }],
    });
    const answer = await importBody(target, line);
    expect(answer.status).toBe(409);
    expect(await answer.json()).toMatchObject({ code: 'IMPORT_CONFLICT' });
  });

  it('answers 415, not 400, for JSON Lines sent as JSON', async () => {
    const line = JSON.stringify({ id: 'sent-as-json', entries: [] });
    const answer = await target.request('/api/import', {
      method: 'POST',
      body: `${line}\n${line}\n`,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(415);
    expect(await answer.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect((await target.request('/api/sessions/sent-as-json')).status).toBe(404);
  });

  it('bounds each line as a JSON body: depth and count of objects, checked before parsing', async () => {
    const deepData = `${'{"a":'.repeat(300_000)}1${'}'.repeat(300_000)}`;
    const deep = `{"id":"deep","entries":[{"cursor":1,"message":{"role":"user","parts":[{"type":"text","text":"x","providerData":${deepData}}]}}]}`;
    const started = performance.now();
    const answer = await importBody(target, `${deep}\n`);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      code: 'INVALID_IMPORT_LINE',
      message: expect.stringContaining(
        'import line 1, field (line): the line nests objects and arrays deeper than 64 levels',
      ),
    });
    const entries = Array.from({ length: 20_000 }, (_, i) => ({
      cursor: i + 1,
      message: userText(`m${i}`),
    }));
    const many = await importBody(target, JSON.stringify({ id: 'many', entries }));
    expect(many.status).toBe(400);
    expect(await many.json()).toMatchObject({
      code: 'INVALID_IMPORT_LINE',
      message: expect.stringContaining('holds more than 50000 objects and arrays'),
    });
    expect((await target.request('/api/sessions/deep')).status).toBe(404);
    expect((await target.request('/api/sessions/many')).status).toBe(404);
  });

  it('takes only JSON Lines, uncompressed, and only with the token', async () => {
    const json = await target.request('/api/import', { method: 'POST', json: [] });
    expect(json.status).toBe(415);
    expect(await json.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const gzip = await importBody(target, '', { 'content-encoding': 'gzip' });
    expect(gzip.status).toBe(415);
    const anonymous = await target.request('/api/import', {
      method: 'POST',
      token: null,
      body: '{}\n',
      headers: { 'content-type': NDJSON },
    });
    expect(anonymous.status).toBe(401);
    expect((await target.request('/api/export', { token: null })).status).toBe(401);
    expect((await target.request('/api/export?resource=')).status).toBe(400);
  });
});

describe('roles', () => {
  const VIEWER = 'e2e-transfer-viewer-token-0123456789';
  const hash = createHash('sha256').update(VIEWER).digest('hex');
  const api = useTestServer('simple', { MEMORY_ADMIN_TOKENS: `reader viewer sha256:${hash}` });

  it('lets a viewer export and refuses its import before reading the body, storing nothing', async () => {
    expect((await api.request('/api/export', { token: VIEWER })).status).toBe(200);
    const line = JSON.stringify({
      id: 'by-viewer',
      entries: [{ cursor: 1, message: userText('x') }],
    });
    const refused = await api.request('/api/import', {
      method: 'POST',
      token: VIEWER,
      body: line,
      headers: { 'content-type': NDJSON },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect((await api.request('/api/sessions/by-viewer')).status).toBe(404);
  });
});
