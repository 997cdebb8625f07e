/**
 * Retention loses nothing, over real HTTP on JSON files, PostgreSQL and NATS: an append answered
 * while a sweep runs survives it, sweeps at once on one server exclude each other, and only an
 * explicit `{"dryRun": false}` changes anything, as the audit log records. The races are forced
 * through the server's own backend object (its `inspect` or `list` waits or writes at the moment
 * the test needs), not by timing.
 */
import type { AuditEntryView, AuditPage } from '@agent-memory/api-contract';
import { MEMORY_BACKEND, type MemoryBackend } from '@agent-memory/memory';
import { useTestServer, userText, type TestServer } from './support/api-test-server';

const IDLE = '1s';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Replaces `name` on the server's backend for the length of `run`, then puts it back. */
async function withPatched<K extends 'list' | 'inspect', T>(
  backend: MemoryBackend,
  name: K,
  patched: (original: MemoryBackend[K]) => MemoryBackend[K],
  run: () => Promise<T>,
): Promise<T> {
  const original = backend[name];
  const bound = original.bind(backend) as MemoryBackend[K];
  Object.assign(backend, { [name]: patched(bound) });
  try {
    return await run();
  } finally {
    Object.assign(backend, { [name]: original });
  }
}

/** The newest audit entries of `action` once `count` of them are there (entries land after the answer). */
async function newestAudit(
  api: TestServer,
  action: string,
  count: number,
): Promise<AuditEntryView[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = (await (await api.request('/api/audit?limit=50')).json()) as AuditPage;
    const found = page.items.filter((entry) => entry.action === action);
    if (found.length >= count || Date.now() > deadline) return found.slice(0, count);
    await pause(20);
  }
}

describe.each(['jsonfile', 'postgres', 'nats'] as const)('retention safety on %s', (kind) => {
  const api = useTestServer(kind, {
    MEMORY_RETENTION_MAX_IDLE: IDLE,
    MEMORY_RETENTION_ACTION: 'delete',
    MEMORY_RETENTION_SWEEP_INTERVAL: '1h',
  });
  const backend = () => api.server.app.get<MemoryBackend>(MEMORY_BACKEND);
  const sweep = (json?: unknown) =>
    api.request('/api/retention/sweep', {
      method: 'POST',
      ...(json === undefined ? {} : { json }),
    });

  async function idleSessions(prefix: string, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    for (const id of ids) expect((await api.append(id, [userText(id)])).status).toBe(201);
    await pause(1200);
    return ids;
  }

  it('changes nothing without an explicit {"dryRun": false}, and the audit log says which ran', async () => {
    const ids = await idleSessions('dry', 2);

    const bodyless = await sweep();
    expect(bodyless.status).toBe(200);
    expect(await bodyless.json()).toMatchObject({ dryRun: true });
    const empty = await sweep({});
    expect(await empty.json()).toMatchObject({ dryRun: true });
    for (const id of ids) expect((await api.request(`/api/sessions/${id}`)).status).toBe(200);

    const real = await sweep({ dryRun: false });
    const body = await real.json();
    expect(body.dryRun).toBe(false);
    expect([...body.expired].sort()).toEqual(ids);
    for (const id of ids) expect((await api.request(`/api/sessions/${id}`)).status).toBe(404);

    const [last, second, first] = await newestAudit(api, 'POST /api/retention/sweep', 3);
    expect(last!.details).toEqual({ dryRun: false, expired: body.expired, expiredCount: 2 });
    expect(second!.details).toMatchObject({ dryRun: true, expiredCount: 2 });
    expect(first!.details).toMatchObject({ dryRun: true, expiredCount: 2 });
  });

  it('an append answered between the judgement and the delete survives the sweep', async () => {
    const [target, other] = await idleSessions('race', 2);
    let appended: Response | null = null;
    // The sweep's last look at `target` is answered; then a client appends to it over HTTP, and
    // the sweep goes on to act on what it saw.
    const result = await withPatched(
      backend(),
      'inspect',
      (inspect) => async (id) => {
        const seen = await inspect(id);
        if (id === target && appended === null) {
          appended = await api.append(target!, [userText('acknowledged during the sweep')]);
        }
        return seen;
      },
      async () => (await sweep({ dryRun: false })).json(),
    );

    expect(appended!.status).toBe(201);
    expect(result.expired).toEqual([other]);
    const messages = await (await api.request(`/api/sessions/${target}/messages`)).json();
    expect(messages.items.map((e: { message: unknown }) => e.message)).toEqual([
      userText(target!),
      userText('acknowledged during the sweep'),
    ]);
  });

  it('three sweeps at once: one runs, the others get 409 RETENTION_SWEEP_BUSY', async () => {
    const ids = await idleSessions('busy', 3);
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let listed!: () => void;
    const listing = new Promise<void>((resolve) => (listed = resolve));
    const answers = await withPatched(
      backend(),
      'list',
      (list) => async (q) => {
        listed();
        await gate;
        return list(q);
      },
      async () => {
        // The first holds the lease and waits on its first page while the others ask.
        const first = sweep({ dryRun: false });
        await listing;
        const others = await Promise.all([sweep({ dryRun: false }), sweep({ dryRun: false })]);
        openGate();
        return [await first, ...others];
      },
    );

    expect(answers.map((answer) => answer.status)).toEqual([200, 409, 409]);
    // Also what earlier tests left idle.
    expect((await answers[0]!.json()).expired).toEqual(expect.arrayContaining(ids));
    for (const busy of answers.slice(1)) {
      expect(await busy.json()).toMatchObject({ code: 'RETENTION_SWEEP_BUSY' });
    }
    // The refused ones freed nothing, and the lease is free once the sweep ends.
    expect((await sweep({ dryRun: false })).status).toBe(200);
  });
});
