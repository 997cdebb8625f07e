/**
 * Retention over real HTTP: `GET /api/retention` and `POST /api/retention/sweep` on servers
 * configured from the environment (PostgreSQL and JSON-file backends), the periodic sweep, the
 * metric, and the errors: no policy (409), a bad body (400 naming the field), a bad duration (the
 * start fails naming the variable). Durations are short (`1s`) since the server's clock is real.
 */
import { ConfigValidationError } from '../src/config/api-config';
import {
  assistantText,
  backendEnv,
  startTestServer,
  useTestServer,
  userText,
  type TestServer,
} from './support/api-test-server';

const IDLE_MS = 1000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(['postgres', 'jsonfile'] as const)('retention on a %s server', (kind) => {
  // Long enough that the session made just before the sweeps stays fresh on a loaded machine.
  const api = useTestServer(kind, {
    MEMORY_RETENTION_MAX_IDLE: '4s',
    MEMORY_RETENTION_ACTION: 'delete',
    // Long enough that only the requests below sweep.
    MEMORY_RETENTION_SWEEP_INTERVAL: '1h',
  });
  const turn = [userText('hello'), assistantText('hi')];
  const sweep = (json?: unknown) =>
    api.request('/api/retention/sweep', { method: 'POST', json: json ?? {} });

  it('GET /api/retention shows the policy and the next sweep', async () => {
    const res = await api.request('/api/retention');
    expect(res.status).toBe(200);
    const view = await res.json();
    expect(view).toMatchObject({
      policy: { maxIdle: '4s', maxIdleMs: 4000, maxAge: null, maxAgeMs: null, action: 'delete' },
      sweepIntervalMs: 3_600_000,
    });
    expect(Date.parse(view.nextSweepAt)).toBeGreaterThan(Date.now());
  });

  it('a dry run lists the idle sessions and keeps them; a sweep deletes them, but not an exempt one', async () => {
    for (const id of ['idle-a', 'idle-b', 'exempt']) {
      expect((await api.append(id, turn)).status).toBe(201);
    }
    const meta = await api.request('/api/sessions/exempt/meta', {
      method: 'PATCH',
      json: { retention: 'keep' },
    });
    expect(meta.status).toBeLessThan(300);
    await pause(4000 + 200);
    expect((await api.append('fresh', turn)).status).toBe(201);

    const dry = await sweep({ dryRun: true });
    expect(dry.status).toBe(200);
    const dryBody = await dry.json();
    expect(dryBody).toMatchObject({ action: 'delete', dryRun: true });
    expect([...dryBody.expired].sort()).toEqual(['idle-a', 'idle-b']);
    expect((await api.request('/api/sessions/idle-a')).status).toBe(200);

    const res = await sweep({ dryRun: false });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect([...body.expired].sort()).toEqual(['idle-a', 'idle-b']);
    expect(body.dryRun).toBe(false);
    expect((await api.request('/api/sessions/idle-a')).status).toBe(404);
    expect((await api.request('/api/sessions/exempt')).status).toBe(200);
    expect((await api.request('/api/sessions/fresh')).status).toBe(200);

    const metrics = await (await api.request('/metrics')).text();
    expect(metrics).toMatch(/agent_memory_sessions_expired_total\{action="delete"\} 2\b/);
  });

  it('400 names the field of a bad body', async () => {
    const bad = await sweep({ dryRun: 'yes' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      statusCode: 400,
      code: 'INVALID_BODY',
      field: 'dryRun',
    });
    const unknown = await sweep({ dryrun: true });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ field: 'dryrun' });
    expect((await sweep([true])).status).toBe(400);
    expect(
      (await api.request('/api/retention/sweep', { method: 'POST', token: null })).status,
    ).toBe(401);
  });
});

describe('keep-summary on a postgres server', () => {
  const api = useTestServer('postgres', {
    MEMORY_RETENTION_MAX_IDLE: '1s',
    MEMORY_RETENTION_ACTION: 'keep-summary',
    MEMORY_RETENTION_SWEEP_INTERVAL: '1h',
    COMPACT_KEEP_RECENT: '2',
  });

  it('keeps the summary, the messages after it and the count of messages ever saved', async () => {
    const turns = Array.from({ length: 4 }, (_, i) => [
      userText(`question ${i} about the trip`),
      assistantText(`answer ${i} about the trip`),
    ]).flat();
    expect((await api.append('summarised', turns)).status).toBe(201);
    expect((await api.append('never-compacted', turns)).status).toBe(201);
    const accepted = await api.request('/api/sessions/summarised/compact', {
      method: 'POST',
      json: { force: true },
    });
    const { jobId } = await accepted.json();
    let state = 'queued';
    for (let i = 0; i < 100 && state !== 'done' && state !== 'failed'; i++) {
      await pause(50);
      state = (await (await api.request(`/api/compactions/${jobId}`)).json()).state;
    }
    expect(state).toBe('done');
    const compacted = await (await api.request('/api/sessions/summarised')).json();
    expect(compacted).toMatchObject({ messages: 8, stored: 8, hasSnapshot: true });
    await pause(IDLE_MS + 200);

    const res = await api.request('/api/retention/sweep', {
      method: 'POST',
      json: { dryRun: false },
    });
    expect(await res.json()).toEqual({
      expired: ['summarised'],
      action: 'keep-summary',
      dryRun: false,
    });
    const after = await (await api.request('/api/sessions/summarised')).json();
    expect(after).toMatchObject({
      messages: 8,
      stored: 8 - compacted.snapshotUpTo,
      hasSnapshot: true,
      snapshotUpTo: compacted.snapshotUpTo,
    });
    expect(after.snapshot.summary).toBe(compacted.snapshot.summary);
    // Without a snapshot there is no summary to keep: left as it was.
    expect(await (await api.request('/api/sessions/never-compacted')).json()).toMatchObject({
      messages: 8,
      stored: 8,
    });
    const metrics = await (await api.request('/metrics')).text();
    expect(metrics).toMatch(/agent_memory_sessions_expired_total\{action="keep-summary"\} 1\b/);
  });
});

describe('two replicas on one PostgreSQL database sweeping at once', () => {
  const data = backendEnv('postgres');
  const env = {
    ...data.env,
    MEMORY_RETENTION_MAX_IDLE: '1s',
    MEMORY_RETENTION_SWEEP_INTERVAL: '1h',
  };
  let replicas: TestServer[] = [];
  beforeAll(async () => {
    replicas = [await startTestServer(env), await startTestServer(env)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.dispose()));
    await data.cleanup();
  });

  it('expire each session once: one sweeps, the other finds it busy or nothing left', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `shared-${i}`);
    for (const id of ids) {
      expect((await replicas[0].append(id, [userText(id)])).status).toBe(201);
    }
    await pause(IDLE_MS + 200);

    const answers = await Promise.all(
      replicas.map((replica) =>
        replica.request('/api/retention/sweep', { method: 'POST', json: { dryRun: false } }),
      ),
    );
    const expired: string[] = [];
    for (const answer of answers) {
      const body = await answer.json();
      if (answer.status === 409) expect(body.code).toBe('RETENTION_SWEEP_BUSY');
      else expired.push(...body.expired);
    }
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
    // No session was expired twice, and none was missed.
    expect([...expired].sort()).toEqual([...ids].sort());
    expect((await replicas[1].request('/api/sessions/shared-0')).status).toBe(404);
  });
});

describe('retention on a server without a policy', () => {
  const api = useTestServer('simple');

  it('GET shows none; a sweep is 409 RETENTION_NOT_CONFIGURED naming the variables', async () => {
    expect(await (await api.request('/api/retention')).json()).toEqual({
      policy: null,
      sweepIntervalMs: null,
      nextSweepAt: null,
    });
    const res = await api.request('/api/retention/sweep', {
      method: 'POST',
      json: { dryRun: true },
    });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body).toMatchObject({ statusCode: 409, code: 'RETENTION_NOT_CONFIGURED' });
    expect(body.message).toMatch(/MEMORY_RETENTION_MAX_IDLE/);
  });
});

describe('the periodic sweep', () => {
  const api = useTestServer('jsonfile', {
    MEMORY_RETENTION_MAX_IDLE: '1s',
    MEMORY_RETENTION_ACTION: 'delete',
    MEMORY_RETENTION_SWEEP_INTERVAL: '1s',
  });

  it('expires an idle session without any request', async () => {
    expect((await api.append('left-alone', [userText('bye')])).status).toBe(201);
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status !== 404 && Date.now() < deadline) {
      await pause(250);
      status = (await api.request('/api/sessions/left-alone')).status;
    }
    expect(status).toBe(404);
  }, 15_000);
});

describe('retention settings at start-up', () => {
  it.each([
    ['MEMORY_RETENTION_MAX_IDLE', { MEMORY_RETENTION_MAX_IDLE: 'soon' }],
    ['MEMORY_RETENTION_MAX_AGE', { MEMORY_RETENTION_MAX_AGE: '30 days' }],
    [
      'MEMORY_RETENTION_ACTION',
      { MEMORY_RETENTION_MAX_AGE: '30d', MEMORY_RETENTION_ACTION: 'archive' },
    ],
    ['MEMORY_RETENTION_ACTION', { MEMORY_RETENTION_ACTION: 'delete' }],
  ])('a bad %s stops the start, naming it', async (name, env) => {
    const data = backendEnv('simple');
    const start = startTestServer({ ...data.env, ...env });
    await expect(start).rejects.toBeInstanceOf(ConfigValidationError);
    await expect(start).rejects.toThrow(name);
  });
});
