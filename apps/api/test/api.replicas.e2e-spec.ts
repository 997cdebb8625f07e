/**
 * Two admin server processes on one backend, as two replicas behind a Service: a compaction job
 * started on one is answered by the other at every state, and a job whose replica is killed with
 * SIGKILL is reported failed (JOB_OWNER_LOST) by the other within the lease.
 */
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { startApiProcess, type ApiProcess } from './support/api-process';
import { backendEnv, type BackendEnv } from './support/api-test-server';

const LEASE_MS = 2000;

async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline)
      throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

const turn = (i: number) => ({
  messages: [
    {
      role: 'user',
      parts: [{ type: 'text', text: `question ${i} about the river and its bridges` }],
    },
    {
      role: 'assistant',
      parts: [{ type: 'text', text: `answer ${i}: seven bridges, the oldest medieval` }],
    },
  ],
});

describe.each(['postgres', 'nats'] as const)('two replicas on the %s backend', (kind) => {
  let llm: FakeLlm;
  let data: BackendEnv;
  const replicas: ApiProcess[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm({ defaultReply: 'the summary' });
    data = backendEnv(kind);
    const env = {
      ...data.env,
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake',
      COMPACT_KEEP_RECENT: '2',
      COMPACTION_JOB_LEASE_MS: String(LEASE_MS),
    };
    replicas.push(...(await Promise.all([startApiProcess(env), startApiProcess(env)])));
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) await replica.kill();
    await llm?.close();
    await data?.cleanup();
  });

  async function job(replica: ApiProcess, jobId: string) {
    const response = await replica.request(`/api/compactions/${jobId}`);
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  it('answers a job started on one replica from the other, at every state', async () => {
    const [a, b] = replicas as [ApiProcess, ApiProcess];
    for (let i = 0; i < 4; i++) {
      expect(
        (await a.request('/api/sessions/shared/messages', { method: 'POST', json: turn(i) }))
          .status,
      ).toBe(201);
    }
    const held = llm.holdNext('summary of the river talk');
    const start = await a.request('/api/sessions/shared/compact', {
      method: 'POST',
      json: { force: true },
    });
    expect(start.status).toBe(202);
    const { jobId } = (await start.json()) as { jobId: string };

    const seen = await job(b, jobId);
    expect(seen.status).toBe(200);
    expect(['queued', 'running']).toContain(seen.body.state);
    await llm.waitForRequests(1);
    expect(
      (
        await poll(
          () => job(b, jobId),
          (j) => j.body.state === 'running',
          10_000,
        )
      ).body,
    ).toMatchObject({
      id: jobId,
      sessionId: 'shared',
      force: true,
    });
    held.release();
    const done = await poll(
      () => job(b, jobId),
      (j) => j.body.state === 'done',
      10_000,
    );
    expect(done.body.result).toMatchObject({ compacted: true });
    expect(done.body.owner).toBeUndefined();
    // Both replicas give the same answer.
    expect((await job(a, jobId)).body).toEqual(done.body);
    expect((await job(b, 'no-such-job')).status).toBe(404);
    console.log(`[${kind}] jobs answered by the other replica: 1 of 1 (queued/running/done)`);
  }, 60_000);

  it('reports the job of a killed replica failed within the lease', async () => {
    const [, b] = replicas as [ApiProcess, ApiProcess];
    const doomed = await startApiProcess({
      ...data.env,
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake',
      COMPACT_KEEP_RECENT: '2',
      COMPACTION_JOB_LEASE_MS: String(LEASE_MS),
    });
    replicas.push(doomed);
    for (let i = 0; i < 4; i++) {
      await doomed.request('/api/sessions/doomed/messages', { method: 'POST', json: turn(i) });
    }
    const requestsBefore = llm.requests.length;
    llm.hangNext();
    const start = await doomed.request('/api/sessions/doomed/compact', {
      method: 'POST',
      json: { force: true },
    });
    const { jobId } = (await start.json()) as { jobId: string };
    await llm.waitForRequests(requestsBefore + 1);
    // The replica writes `running` to the shared store as the work starts, not before it: the
    // other replica sees it moments after the LLM does.
    const running = await poll(
      () => job(b, jobId),
      (j) => j.body.state !== 'queued',
      LEASE_MS,
    );
    expect(running.body.state).toBe('running');

    await doomed.kill();
    const killedAt = Date.now();
    const failed = await poll(
      () => job(b, jobId),
      (j) => j.body.state === 'failed',
      5 * LEASE_MS,
    );
    const reportedAfterMs = Date.now() - killedAt;
    expect(failed.body.error).toMatchObject({ code: 'JOB_OWNER_LOST' });
    console.log(
      `[${kind}] killed replica's job reported failed ${reportedAfterMs} ms after SIGKILL (lease ${LEASE_MS} ms)`,
    );
    // The session is untouched: no snapshot from the killed job.
    const session = await b.request('/api/sessions/doomed');
    expect((await session.json()).hasSnapshot).toBe(false);
  }, 60_000);
});
