/**
 * The audit log through the API, on each backend: every change that reaches a route is recorded
 * (allowed or refused by role) with who, what, which session, when and how it ended; reads are
 * not; only admins list it; and an audit log that cannot be written loses no change.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditEntryView, AuditPage } from '@agent-memory/api-contract';
import {
  ALL_BACKENDS,
  backendEnv,
  startTestServer,
  TEST_ADMIN_TOKEN,
  userText,
  useTestServer,
  type TestServer,
} from './support/api-test-server';
import { RecordingLogger } from './support/recording-logger';
import { AuditRecorder } from '../src/audit/audit-recorder';

const VIEWER = 'audit-viewer-token-0123456789';
const OPERATOR = 'audit-operator-token-0123456789';
const hashOf = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;
const NAMED_TOKENS = `dash viewer ${hashOf(VIEWER)}\noncall operator ${hashOf(OPERATOR)}`;

/**
 * The audit log's `count` newest entries once the newest is about `newestSession` (entries land
 * just after the answer).
 */
async function auditEntries(
  api: TestServer,
  count: number,
  newestSession: string,
): Promise<AuditEntryView[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await api.request(`/api/audit?limit=${Math.max(count, 1)}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as AuditPage;
    const landed = page.items.length >= count && page.items[0]!.sessionId === newestSession;
    if (landed || Date.now() > deadline) return page.items;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(ALL_BACKENDS)('the audit log on %s', (kind) => {
  const api = useTestServer(kind, { MEMORY_ADMIN_TOKENS: NAMED_TOKENS });

  it('records each change that reached a route, allowed or refused, and no read', async () => {
    const started = Date.now();
    // Upper case in the id: the entry names the session as sent, whatever spelling the path had.
    const id = `Audited-${kind}`;
    const as = (token: string) => ({ token });
    expect((await api.append(id, [userText('hello')])).status).toBe(201);
    const appended = await api.request(`/api/sessions/${id}/messages`, {
      method: 'POST',
      json: { messages: [userText('more')] },
      ...as(OPERATOR),
    });
    expect(appended.status).toBe(201);
    const meta = await api.request(`/API/Sessions/${id}/meta`, {
      method: 'PATCH',
      json: { title: 'audited' },
      ...as(OPERATOR),
    });
    expect(meta.status).toBe(200);
    const refused = await api.request(`/api/sessions/${id}`, { method: 'DELETE', ...as(VIEWER) });
    expect(refused.status).toBe(403);
    const invalid = await api.request(`/api/sessions/${id}/messages`, {
      method: 'POST',
      json: { messages: [{ role: 'nobody' }] },
      ...as(OPERATOR),
    });
    expect(invalid.status).toBe(400);
    // Reads, and requests that never signed in, are not recorded.
    expect((await api.request(`/api/sessions/${id}`, as(VIEWER))).status).toBe(200);
    expect(
      (await api.request(`/api/sessions/${id}`, { method: 'DELETE', token: null })).status,
    ).toBe(401);
    const deleted = await api.request(`/api/sessions/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);

    const entries = await auditEntries(api, 6, id);
    expect(entries.map(({ id: _id, at: _at, ...rest }) => rest)).toEqual([
      {
        actor: { name: 'admin', role: 'admin' },
        action: 'DELETE /api/sessions/:id',
        sessionId: id,
        resource: null,
        status: 204,
        code: null,
      },
      {
        actor: { name: 'oncall', role: 'operator' },
        action: 'POST /api/sessions/:id/messages',
        sessionId: id,
        resource: null,
        status: 400,
        code: expect.stringMatching(/^INVALID_/),
      },
      {
        actor: { name: 'dash', role: 'viewer' },
        action: 'DELETE /api/sessions/:id',
        sessionId: id,
        resource: null,
        status: 403,
        code: 'FORBIDDEN_ROLE',
      },
      {
        actor: { name: 'oncall', role: 'operator' },
        action: 'PATCH /api/sessions/:id/meta',
        sessionId: id,
        resource: null,
        status: 200,
        code: null,
      },
      {
        actor: { name: 'oncall', role: 'operator' },
        action: 'POST /api/sessions/:id/messages',
        sessionId: id,
        resource: null,
        status: 201,
        code: null,
      },
      {
        actor: { name: 'admin', role: 'admin' },
        action: 'POST /api/sessions/:id/messages',
        sessionId: id,
        resource: null,
        status: 201,
        code: null,
      },
    ]);
    for (const entry of entries) {
      expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(started - 1000);
      expect(Date.parse(entry.at)).toBeLessThanOrEqual(Date.now());
    }
  });

  it('pages newest first for admins only, and names a bad cursor', async () => {
    for (let i = 0; i < 5; i++) {
      const id = `paged-${kind}-${i}`;
      expect((await api.append(id, [userText('x')])).status).toBe(201);
    }
    const newest = await auditEntries(api, 5, `paged-${kind}-4`);
    const first = (await (await api.request('/api/audit?limit=2')).json()) as AuditPage;
    expect(first.items).toEqual(newest.slice(0, 2));
    expect(first.next).toEqual(expect.any(String));
    const second = (await (
      await api.request(`/api/audit?limit=3&after=${encodeURIComponent(first.next!)}`)
    ).json()) as AuditPage;
    expect(second.items).toEqual(newest.slice(2, 5));

    for (const token of [VIEWER, OPERATOR]) {
      const refused = await api.request('/api/audit', { token });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    }
    const bad = await api.request('/api/audit?after=not-a-cursor!');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'INVALID_QUERY' });
    const badLimit = await api.request('/api/audit?limit=0');
    expect(badLimit.status).toBe(400);
  });
});

describe.each(ALL_BACKENDS)('an audit log that keeps the changes that happened on %s', (kind) => {
  // A small log, so that a flood of refusals would push the admin's change out of it.
  const api = useTestServer(kind, { MEMORY_ADMIN_TOKENS: NAMED_TOKENS, AUDIT_MAX_ENTRIES: '30' });

  it('records every spelling of a change, bounded parameters, and at most 20 refusals per actor', async () => {
    const id = `erased-${kind}`;
    expect((await api.append(id, [userText('mine')])).status).toBe(201);
    const meta = await api.request(`/api/sessions/${id}/meta`, {
      method: 'PATCH',
      json: { resource: 'a/b' },
    });
    expect(meta.status).toBe(200);
    // The spelling the docs recommend for a resource with a slash.
    const erased = await api.request('/api/resources/a%2Fb', { method: 'DELETE' });
    expect(erased.status).toBe(200);
    expect(await erased.json()).toMatchObject({ resource: 'a/b', sessions: 1 });

    const long = `x${'y'.repeat(4999)}`;
    for (let i = 0; i < 60; i++) {
      const refused = await api.request(`/api/sessions/${long}`, {
        method: 'DELETE',
        token: VIEWER,
      });
      expect(refused.status).toBe(403);
    }

    // Every entry of the answers above written (they land just after each answer).
    await api.server.app.get(AuditRecorder).settled();
    const entries = ((await (await api.request('/api/audit?limit=100')).json()) as AuditPage).items;
    const refusals = entries.filter((entry) => entry.actor.role === 'viewer');
    expect(refusals).toHaveLength(20);
    for (const entry of refusals) {
      expect(entry.sessionId!.length).toBeLessThan(320);
      expect(entry.sessionId).toMatch(/^xy+…\[4744 more characters not kept\]$/);
    }
    const erase = entries.find((entry) => entry.action === 'DELETE /api/resources/:resource');
    expect(erase).toMatchObject({
      actor: { name: 'admin', role: 'admin' },
      resource: 'a/b',
      status: 200,
      details: { receipt: { sessions: 1, messages: 1, vectors: 0 } },
    });
  });
});

describe('an audit log that cannot be written', () => {
  let api: TestServer;
  let cleanup: () => Promise<void>;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    const data = backendEnv('jsonfile');
    cleanup = data.cleanup;
    // A file where the audit folder should be: every append fails.
    mkdirSync(data.env.MEMORY_DIR!, { recursive: true });
    writeFileSync(join(data.env.MEMORY_DIR!, '.audit'), 'not a folder');
    api = await startTestServer(data.env, { logger });
  });
  afterAll(async () => {
    await api.dispose();
    await cleanup();
  });

  it('still makes the change, logs the failure and counts it', async () => {
    const id = 'kept-despite-audit';
    const appended = await api.append(id, [userText('kept')]);
    expect(appended.status).toBe(201);
    const meta = await api.request(`/api/sessions/${id}/meta`, {
      method: 'PATCH',
      json: { title: 'still here' },
    });
    expect(meta.status).toBe(200);
    const session = (await (await api.request(`/api/sessions/${id}`)).json()) as {
      messages: number;
      meta: Record<string, string>;
    };
    expect(session).toMatchObject({ messages: 1, meta: { title: 'still here' } });

    const deadline = Date.now() + 10_000;
    let failures = 0;
    while (failures < 2 && Date.now() < deadline) {
      const metrics = await (await api.request('/metrics', { token: TEST_ADMIN_TOKEN })).text();
      failures = Number(/^agent_memory_audit_failures_total (\d+)/m.exec(metrics)?.[1] ?? 0);
      if (failures < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(failures).toBe(2);
    expect(logger.lines.filter((line) => line.includes('could not record'))).toEqual([
      expect.stringContaining('POST /api/sessions/:id/messages by "admin" (status 201)'),
      expect.stringContaining('PATCH /api/sessions/:id/meta by "admin" (status 200)'),
    ]);
  });
});
