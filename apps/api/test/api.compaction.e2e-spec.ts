/**
 * On-demand compaction over HTTP, once per backend, with a real local OpenAI-compatible server as
 * the summariser's LLM: a job goes queued → running → done with its result, the snapshot shows on
 * the session, and a failed LLM call fails the job and changes nothing.
 */
import type { CompactionJob } from '@agent-memory/memory';
import type { SessionDetail } from '@agent-memory/api-contract';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { ALL_BACKENDS, assistantText, userText, useTestServer } from './support/api-test-server';

describe.each(ALL_BACKENDS)('compaction through the admin API on the %s backend', (kind) => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm?.close());
  const api = useTestServer(kind, () => ({
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'test-model',
    COMPACT_KEEP_RECENT: '2',
    COMPACT_AT_TOKENS: '100000',
  }));

  async function job(jobId: string): Promise<CompactionJob> {
    const response = await api.request(`/api/compactions/${jobId}`);
    expect(response.status).toBe(200);
    return (await response.json()) as CompactionJob;
  }

  async function finished(jobId: string): Promise<CompactionJob> {
    for (let i = 0; i < 200; i++) {
      const current = await job(jobId);
      if (current.state === 'done' || current.state === 'failed') return current;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`job ${jobId} did not finish`);
  }

  async function compact(id: string, body: unknown): Promise<string> {
    const response = await api.request(`/api/sessions/${id}/compact`, {
      method: 'POST',
      json: body,
    });
    expect(response.status).toBe(202);
    const { jobId } = (await response.json()) as { jobId: string };
    expect(typeof jobId).toBe('string');
    return jobId;
  }

  async function seed(id: string): Promise<void> {
    const messages = [
      userText('Plan a week in Lisbon for two in May'),
      assistantText('Happy to. Do you prefer museums or beaches?'),
      userText('Mostly food and walking tours, some museums'),
      assistantText('Then stay in Baixa; here is a day-by-day plan with restaurants and walks'),
      userText('Add a day trip to Sintra'),
      assistantText('Added Sintra on day four, by train from Rossio'),
    ];
    const response = await api.request(`/api/sessions/${id}/messages`, {
      method: 'POST',
      json: { messages },
    });
    expect(response.status).toBe(201);
  }

  it('runs a job through queued and running to done, and the snapshot shows on the session', async () => {
    await seed('trip');
    const before = await (await api.request('/api/sessions/trip')).json();
    expect(before.hasSnapshot).toBe(false);

    const held = llm.holdNext(
      'They plan a food-and-walking week in Lisbon with a Sintra day trip.',
    );
    const calls = llm.requests.length;
    const first = await compact('trip', { force: true });
    await llm.waitForRequests(calls + 1);
    expect(await job(first)).toMatchObject({
      id: first,
      sessionId: 'trip',
      state: 'running',
      force: true,
    });

    const second = await compact('trip', { force: true, dryRun: true });
    expect(await job(second)).toMatchObject({ state: 'queued', dryRun: true });

    held.release();
    const done = await finished(first);
    expect(done.state).toBe('done');
    expect(done.result).toMatchObject({ compacted: true, upTo: expect.any(Number) });
    expect(done.result!.tokensAfter).toBeLessThan(done.result!.tokensBefore);
    expect((await finished(second)).state).toBe('done');

    // The last compaction (the dry run, finished last) is on the session route for every tab and replica.
    const lastCompaction = async () =>
      ((await (await api.request('/api/sessions/trip')).json()) as SessionDetail).lastCompaction;
    let last = await lastCompaction();
    for (let i = 0; i < 100 && last?.id !== second; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = await lastCompaction();
    }
    expect(last).toMatchObject({ id: second, dryRun: true, state: 'done' });

    const after = await (await api.request('/api/sessions/trip')).json();
    expect(after).toMatchObject({
      hasSnapshot: true,
      snapshotUpTo: done.result!.upTo,
      messages: 6,
    });
    expect(after.snapshot.summary).toContain('Sintra day trip');
    expect(after.tokens).toBeLessThan(before.tokens);

    const page = await (await api.request('/api/sessions/trip/messages')).json();
    for (const item of page.items) expect(item.covered).toBe(item.cursor <= after.snapshotUpTo);
    // NATS prunes what a snapshot covers by default; the other backends keep it, marked covered.
    const prunes = kind === 'nats';
    expect(page.items).toHaveLength(prunes ? 2 : 6);
    expect(page.items.filter((e: { covered: boolean }) => e.covered)).toHaveLength(prunes ? 0 : 4);
    expect(
      page.items
        .filter((e: { covered: boolean }) => !e.covered)
        .map((e: { message: unknown }) => e.message),
    ).toEqual([
      userText('Add a day trip to Sintra'),
      assistantText('Added Sintra on day four, by train from Rossio'),
    ]);
  });

  it('fails the job when the LLM fails, and leaves the session as it was', async () => {
    await seed('unlucky');
    llm.failNext(500, 'the model is overloaded');
    const jobId = await compact('unlucky', { force: true });
    const failed = await finished(jobId);
    expect(failed.state).toBe('failed');
    expect(failed.error!.message).toMatch(/overloaded|500/);
    const session = await (await api.request('/api/sessions/unlucky')).json();
    expect(session).toMatchObject({ hasSnapshot: false, snapshot: null, stored: 6 });
  });

  it('computes without saving on a dry run', async () => {
    await seed('dry');
    const done = await finished(await compact('dry', { force: true, dryRun: true }));
    expect(done.state).toBe('done');
    expect((await (await api.request('/api/sessions/dry')).json()).hasSnapshot).toBe(false);
  });
});
