/**
 * What an operator sees: Prometheus metrics behind the token (or on METRICS_PORT without it),
 * spans around store calls once a tracer provider is registered, and one JSON object a line in
 * the log with session id and operation, never a message's text.
 */
import { trace } from '@opentelemetry/api';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonFileBackend, userMessage } from '@agent-memory/memory';
import { natsBackend } from '@agent-memory/memory/nats';
import { RecordingTracerProvider } from '@agent-memory/test-support/recording-tracer';
import { startHeldPublishProxy } from '@agent-memory/test-support/held-publish.proxy';
import { freePort } from '@agent-memory/test-support/services';
import { MemoryMetrics } from '../src/metrics/memory-metrics';
import { startApiProcess } from './support/api-process';
import { backendEnv, startTestServer, type TestServer } from './support/api-test-server';

const user = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });

/** The value of one sample line, such as `name{a="b"} 3`; 0 when absent. */
function sample(text: string, line: RegExp): number {
  const match = text.split('\n').find((l) => line.test(l));
  return match ? Number(match.split(' ').at(-1)) : 0;
}

describe('observability', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  describe('/metrics', () => {
    let api: TestServer;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'agent-memory-metrics-'));
      mkdirSync(join(dir, 'sessions'));
      writeFileSync(join(dir, 'sessions', 'broken.json'), '{"messages": [');
      api = await startTestServer({
        MEMORY_BACKEND: 'jsonfile',
        MEMORY_DIR: join(dir, 'sessions'),
        COMPACT_KEEP_RECENT: '2',
      });
      cleanups.push(async () => {
        await api.dispose();
        rmSync(dir, { recursive: true, force: true });
      });
    });

    it('needs the token and counts operations, errors by code and compactions', async () => {
      expect((await api.request('/metrics', { token: null })).status).toBe(401);
      for (let i = 0; i < 6; i++) {
        const saved = await api.request('/api/sessions/m1/messages', {
          method: 'POST',
          json: { messages: [user(`turn ${i}: a long enough question about rivers and bridges`)] },
        });
        expect(saved.status).toBe(201);
      }
      expect((await api.request('/api/sessions/broken')).status).toBe(422);
      const start = await api.request('/api/sessions/m1/compact', {
        method: 'POST',
        json: { force: true },
      });
      const { jobId } = (await start.json()) as { jobId: string };
      for (let i = 0; i < 100; i++) {
        const job = (await (await api.request(`/api/compactions/${jobId}`)).json()) as {
          state: string;
        };
        if (job.state === 'done' || job.state === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

      const response = await api.request('/metrics');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
      const text = await response.text();
      expect(
        sample(
          text,
          /^agent_memory_operations_total\{backend="jsonfile",operation="save",outcome="ok"\}/,
        ),
      ).toBeGreaterThanOrEqual(6);
      expect(
        sample(
          text,
          /^agent_memory_errors_total\{backend="jsonfile",operation="[a-zA-Z]+",code="CORRUPT_SESSION"\}/,
        ),
      ).toBeGreaterThanOrEqual(1);
      expect(
        sample(
          text,
          /^agent_memory_operation_duration_seconds_count\{backend="jsonfile",operation="save"\}/,
        ),
      ).toBeGreaterThanOrEqual(6);
      expect(sample(text, /^agent_memory_compactions_total\{outcome="compacted"\}/)).toBe(1);
      expect(sample(text, /^agent_memory_compaction_tokens_saved_total/)).toBeGreaterThan(0);
      expect(text).toMatch(/^agent_memory_process_cpu_user_seconds_total/m);
      expect(text).not.toContain('rivers and bridges');
    });
  });

  describe('what the stores report', () => {
    it('counts NATS compare-and-swap retries and the sessions near the NATS payload limit', async () => {
      const data = backendEnv('nats');
      const bucket = data.env.MEMORY_NATS_BUCKET!;
      // The server reaches NATS through a proxy that holds its first write to the session until
      // another process's writer has stored one: its compare-and-swap then loses, every run.
      const proxy = await startHeldPublishProxy(data.env.NATS_URL!, `$KV.${bucket}.contended`);
      const api = await startTestServer({ ...data.env, NATS_URL: proxy.url });
      const other = await natsBackend({ servers: data.env.NATS_URL!, bucket });
      cleanups.push(async () => {
        await other.close();
        await api.dispose();
        await proxy.close();
        await data.cleanup();
      });
      const metrics = async () => (await api.request('/metrics')).text();
      const retries = (text: string) =>
        sample(text, /^agent_memory_cas_retries_total\{backend="nats"\}/);
      expect(retries(await metrics())).toBe(0);
      const appended = api.request('/api/sessions/contended/messages', {
        method: 'POST',
        json: { messages: [user('from the server')] },
      });
      await proxy.held;
      const rival = await other.open('contended');
      await rival.save([userMessage('from another process')]);
      proxy.release();
      expect((await appended).status).toBe(201);
      expect(retries(await metrics())).toBe(1);
      const texts = (await rival.retrieve()).map((m) => (m.parts[0] as { text: string }).text);
      expect(texts).toEqual(['from another process', 'from the server']);

      const near = (text: string) =>
        sample(text, /^agent_memory_sessions_near_size_limit\{backend="nats"\}/);
      const { maxPayload } = await other.status();
      const big = await api.request('/api/sessions/nearly-full/messages', {
        method: 'POST',
        json: { messages: [user('x'.repeat(Math.floor(maxPayload * 0.85)))] },
      });
      expect(big.status).toBe(201);
      const full = await metrics();
      expect(near(full)).toBe(1);
      expect(
        sample(full, /^agent_memory_session_size_ratio_bucket\{le="0\.9",backend="nats"\}/) -
          sample(full, /^agent_memory_session_size_ratio_bucket\{le="0\.8",backend="nats"\}/),
      ).toBe(1);
      expect(
        (await api.request('/api/sessions/nearly-full', { method: 'DELETE' })).status,
      ).toBeLessThan(300);
      expect(near(await metrics())).toBe(0);
    }, 60_000);

    it('reports JSON-file sessions near maxSessionBytes in the exposition', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-memory-size-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const metrics = new MemoryMetrics({ defaultMetrics: false });
      const backend = jsonFileBackend({ dir, maxSessionBytes: 2000, observer: metrics });
      const small = await backend.open('small');
      await small.save([userMessage('hi')]);
      const near = /^agent_memory_sessions_near_size_limit\{backend="jsonfile"\}/;
      expect(sample(await metrics.render(), near)).toBe(0);
      const large = await backend.open('large');
      await large.save([userMessage('y'.repeat(1700))]);
      expect(sample(await metrics.render(), near)).toBe(1);
      await expect(large.save([userMessage('z'.repeat(500))])).rejects.toMatchObject({
        code: 'SESSION_TOO_LARGE',
      });
      expect(sample(await metrics.render(), near)).toBe(1);
      await backend.close();
    });
  });

  it('serves /metrics without the token on METRICS_PORT, and nothing else there', async () => {
    const metricsPort = await freePort();
    const api = await startTestServer({
      MEMORY_BACKEND: 'simple',
      METRICS_PORT: String(metricsPort),
    });
    cleanups.push(() => api.dispose());
    await api.request('/api/sessions/p1/messages', {
      method: 'POST',
      json: { messages: [user('x')] },
    });
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(
      /agent_memory_operations_total\{backend="simple",operation="save",outcome="ok"\} 1/,
    );
    expect((await fetch(`http://127.0.0.1:${metricsPort}/api/sessions`)).status).toBe(404);
  });

  it('wraps store calls in spans once a tracer provider is registered', async () => {
    const provider = new RecordingTracerProvider();
    trace.setGlobalTracerProvider(provider);
    cleanups.push(() => trace.disable());
    const api = await startTestServer({ MEMORY_BACKEND: 'simple' });
    cleanups.push(() => api.dispose());
    await api.request('/api/sessions/traced/messages', {
      method: 'POST',
      json: { messages: [user('x')] },
    });
    const save = provider.tracer.spans.find((span) => span.name === 'memory.save');
    expect(save).toMatchObject({
      ended: true,
      attributes: {
        'memory.backend': 'simple',
        'memory.operation': 'save',
        'memory.session_id': 'traced',
      },
    });
  });

  it('logs one JSON object a line with session id and operation, never message text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-memory-logs-'));
    mkdirSync(join(dir, 'sessions'));
    writeFileSync(join(dir, 'sessions', 'broken.json'), '{"messages": [');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = await startApiProcess({
      MEMORY_BACKEND: 'jsonfile',
      MEMORY_DIR: join(dir, 'sessions'),
      NODE_ENV: 'production',
    });
    cleanups.push(() => server.kill());
    const secret = 'the launch code is 0000-SECRET';
    expect(
      (
        await server.request('/api/sessions/broken/messages', {
          method: 'POST',
          json: { messages: [user(secret)] },
        })
      ).status,
    ).toBe(422);
    await server.request('/api/sessions/fine/messages', {
      method: 'POST',
      json: { messages: [user(secret)] },
    });
    await server.stop();
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThan(2);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(
      entries.every((e) => typeof e.level === 'string' && typeof e.timestamp === 'number'),
    ).toBe(true);
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        context: 'Memory',
        message: expect.objectContaining({
          sessionId: 'broken',
          operation: expect.any(String),
          code: 'CORRUPT_SESSION',
        }),
      }),
    );
    expect(server.output()).not.toContain('0000-SECRET');
  }, 60_000);
});
