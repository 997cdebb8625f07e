/**
 * The routes the dashboard adds: `/api/info`, a session's transcript with token counts, its model
 * context split by source, and its export as JSON and Markdown. Real HTTP on a JSON-file store.
 */
import type {
  ServerInfo,
  SessionContext,
  SessionExport,
  TranscriptPage,
} from '@agent-memory/api-contract';
import { assistantText, userText, useTestServer } from './support/api-test-server';

describe('dashboard routes', () => {
  const api = useTestServer('jsonfile', {
    COMPACT_AT_TOKENS: '5000',
    COMPACT_KEEP_RECENT: '2',
  });

  const append = (id: string, messages: unknown[]) => api.append(id, messages);

  async function compacted(id: string): Promise<void> {
    const accepted = await api.request(`/api/sessions/${id}/compact`, {
      method: 'POST',
      json: { force: true },
    });
    const { jobId } = (await accepted.json()) as { jobId: string };
    for (let i = 0; i < 200; i += 1) {
      const job = (await (await api.request(`/api/compactions/${jobId}`)).json()) as {
        state: string;
      };
      if (job.state === 'done') return;
      if (job.state === 'failed') throw new Error(JSON.stringify(job));
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error('compaction did not finish');
  }

  it('GET /api/info names the backend and the compaction settings, behind the token', async () => {
    expect((await api.request('/api/info', { token: null })).status).toBe(401);
    const info = (await (await api.request('/api/info')).json()) as ServerInfo;
    expect(info).toEqual({
      backend: 'jsonfile',
      compaction: {
        mode: 'inline',
        thresholdTokens: 5000,
        keepRecent: 2,
        summarizer: 'extractive',
        model: null,
      },
      recall: null,
      token: { name: 'admin', role: 'admin' },
    });
  });

  it('pages the transcript with each message token count and the covered flag', async () => {
    await append('views-a', [
      userText('the task: sort the files'),
      // Long enough that a summary of them makes the context smaller (else nothing is saved).
      assistantText(
        'I will sort the files by date first. Files from 2024 go into the archive folder. ' +
          'Files without a date keep their place, and I will list them for you at the end.',
      ),
      userText(
        'Good. Please also move the duplicates into a folder named old, and keep the newest copy ' +
          'of each one where it is. Do not touch anything under the photos folder.',
      ),
      assistantText(
        'Done: 312 files sorted, 41 duplicates moved to old, the photos folder left as it was. ' +
          'Seven files had no date; their names are in the list below for you to check.',
      ),
      userText('and'),
      assistantText('more'),
    ]);
    await compacted('views-a');
    const first = (await (
      await api.request('/api/sessions/views-a/transcript?limit=4')
    ).json()) as TranscriptPage;
    expect(first.items).toHaveLength(4);
    expect(first.next).toBe(first.items[3]!.cursor);
    expect(first.items.every((item) => item.tokens > 0)).toBe(true);
    expect(first.items[0]!.covered).toBe(true);
    const rest = (await (
      await api.request(`/api/sessions/views-a/transcript?after=${first.next}&limit=4`)
    ).json()) as TranscriptPage;
    expect(rest.items.map((item) => item.covered)).toEqual([false, false]);
    expect(rest.next).toBeNull();
    expect((await api.request('/api/sessions/nope/transcript')).status).toBe(404);
    const bad = await api.request('/api/sessions/views-a/transcript?limit=0');
    expect(bad.status).toBe(400);
    expect((await bad.json()).field).toBe('limit');
  });

  it('returns the model context as summary, pinned task and tail with token totals', async () => {
    const context = (await (
      await api.request('/api/sessions/views-a/context')
    ).json()) as SessionContext;
    expect(context.messages.map((m) => m.source)).toEqual(['summary', 'pinned', 'tail', 'tail']);
    expect(context.messages[1]!.message.parts[0]!.text).toBe('the task: sort the files');
    expect(context.messages.slice(2).map((m) => m.message.parts[0]!.text)).toEqual(['and', 'more']);
    const sum = (source: string) =>
      context.messages.filter((m) => m.source === source).reduce((total, m) => total + m.tokens, 0);
    expect(context.tokens.summary).toBe(sum('summary'));
    expect(context.tokens.pinned).toBe(sum('pinned'));
    expect(context.tokens.tail).toBe(sum('tail'));
    // Each message's count holds its own overhead; the request primes the reply once.
    expect(context.tokens.priming).toBe(3);
    expect(context.tokens.total).toBe(
      sum('summary') + sum('pinned') + sum('tail') + context.tokens.priming,
    );
    const detail = await (await api.request('/api/sessions/views-a')).json();
    expect(context.tokens.total).toBe(detail.tokens);
    expect(context.compactAt).toBe(5000);
    expect(context.snapshot?.upTo).toBe(detail.snapshotUpTo);
  });

  it('exports a session as JSON and as Markdown where message text cannot break out', async () => {
    await append('views-b', [userText('hello ``` <b>not bold</b>'), assistantText('hi')]);
    await api.request('/api/sessions/views-b/meta', {
      method: 'PATCH',
      json: { title: 'Greeting' },
    });
    const json = await api.request('/api/sessions/views-b/export?format=json');
    expect(json.headers.get('content-disposition')).toBe('attachment; filename="views-b.json"');
    const doc = (await json.json()) as SessionExport;
    expect(doc.session.meta.title).toBe('Greeting');
    expect(doc.messages.map((m) => m.message.parts[0]!.text)).toEqual([
      'hello ``` <b>not bold</b>',
      'hi',
    ]);
    const md = await api.request('/api/sessions/views-b/export?format=md');
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    const text = await md.text();
    expect(text).toContain('# Session Greeting (views-b)');
    expect(text).toContain('````\nhello ``` <b>not bold</b>\n````');
    const bad = await api.request('/api/sessions/views-b/export?format=pdf');
    expect(bad.status).toBe(400);
    expect((await bad.json()).field).toBe('format');
  });

  it('counts the context tokens of several sessions at once, null for unknown ones', async () => {
    const response = await api.request('/api/context-tokens?ids=views-a,views-b,missing');
    const counts = (await response.json()) as Record<string, number | null>;
    const detail = await (await api.request('/api/sessions/views-b')).json();
    expect(counts['views-b']).toBe(detail.tokens);
    expect(counts['views-a']).toBeGreaterThan(0);
    expect(counts.missing).toBeNull();
    const bad = await api.request('/api/context-tokens?ids=ok,bad%20id');
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe('INVALID_SESSION_ID');
  });

  it('clears a session: messages, snapshot and metadata go, the id stays usable', async () => {
    await append('views-c', [userText('one'), assistantText('two')]);
    await api.request('/api/sessions/views-c/meta', { method: 'PATCH', json: { title: 'C' } });
    expect((await api.request('/api/sessions/views-c/clear', { method: 'POST' })).status).toBe(204);
    const after = await api.request('/api/sessions/views-c/transcript');
    const page = after.status === 404 ? { items: [] } : ((await after.json()) as TranscriptPage);
    expect(page.items).toEqual([]);
    expect((await api.request('/api/sessions/never/clear', { method: 'POST' })).status).toBe(404);
  });
});
