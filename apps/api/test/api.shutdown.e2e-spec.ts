/**
 * Graceful shutdown: readiness turns 503 at once, a request in flight completes and is stored,
 * then the server stops accepting connections, then running compactions finish, then the backend
 * closes.
 */
import type { BackendKind } from '@agent-memory/memory';
import { request as httpRequest } from 'node:http';
import {
  TEST_ADMIN_TOKEN,
  backendEnv,
  startTestServer,
  type BackendEnv,
} from './support/api-test-server';
import { startFakeLlm } from '@agent-memory/test-support/fake-llm.server';

// Backends that outlive the server, so a second server can check what the first one stored.
const BACKENDS: BackendKind[] = ['jsonfile', 'postgres', 'nats'];

describe.each(BACKENDS)('admin API shutdown on the %s backend', (kind) => {
  let data: BackendEnv;

  beforeEach(async () => {
    data = backendEnv(kind);
  });

  afterEach(async () => {
    await data.cleanup();
  });

  it('finishes a request in flight, reports 503 on readiness meanwhile, then refuses connections', async () => {
    const api = await startTestServer({ ...data.env, SHUTDOWN_DELAY_MS: '2000' });
    const url = new URL(`${api.server.url}/api/sessions/in-flight/messages`);
    const body = Buffer.from(
      JSON.stringify({
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'still here' }] }],
      }),
    );

    // "Expect: 100-continue" makes the server answer as soon as it has taken the request in, so
    // the test knows the request is in flight before it starts the shutdown.
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        'content-type': 'application/json',
        'content-length': body.length,
        expect: '100-continue',
      },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.once('error', reject);
    });
    await new Promise<void>((resolve) => req.once('continue', () => resolve()));
    req.write(body.subarray(0, 10));

    const closing = api.server.app.close();
    const ready = await fetch(`${api.server.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      status: 'error',
      error: { server: { status: 'down', message: 'shutting down' } },
    });

    req.end(body.subarray(10));
    const done = await response;
    expect(done.status).toBe(201);
    const stored = JSON.parse(done.text);
    expect(stored).toEqual({
      appended: 1,
      first: expect.any(Number),
      last: stored.first,
      replayed: false,
    });

    await closing;
    await expect(fetch(`${api.server.url}/health/live`)).rejects.toThrow();
    const again = await startTestServer(data.env);
    try {
      const stored = await again.request('/api/sessions/in-flight');
      expect(await stored.json()).toMatchObject({ id: 'in-flight', messages: 1 });
    } finally {
      await again.dispose();
    }
  });

  it('lets a running compaction finish before it closes the backend', async () => {
    const llm = await startFakeLlm();
    try {
      const env = {
        ...data.env,
        LLM_BASE_URL: llm.baseUrl,
        LLM_MODEL: 'm',
        COMPACT_KEEP_RECENT: '1',
      };
      const api = await startTestServer(env);
      // Long enough that the summary makes the context smaller (else compaction saves nothing).
      const messages = ['one', 'two', 'three']
        .map((n) => `message ${n}: ${'some words '.repeat(20)}`)
        .map((text) => ({
          role: 'user',
          parts: [{ type: 'text', text }],
        }));
      await api.request('/api/sessions/draining/messages', { method: 'POST', json: { messages } });
      const held = llm.holdNext('summary written during shutdown');
      const calls = llm.requests.length;
      const queued = await api.request('/api/sessions/draining/compact', {
        method: 'POST',
        json: { force: true },
      });
      expect(queued.status).toBe(202);
      await llm.waitForRequests(calls + 1);

      const closing = api.server.app.close();
      // The HTTP side is closed first; the compaction is still waiting for the LLM.
      await waitUntilRefused(`${api.server.url}/health/live`);
      held.release();
      await closing;

      const again = await startTestServer(data.env);
      try {
        const session = await (await again.request('/api/sessions/draining')).json();
        expect(session).toMatchObject({ hasSnapshot: true });
        expect(session.snapshot.summary).toBe('summary written during shutdown');
      } finally {
        await again.dispose();
      }
    } finally {
      await llm.close();
    }
  });
});

async function waitUntilRefused(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${url} still answers`);
}
