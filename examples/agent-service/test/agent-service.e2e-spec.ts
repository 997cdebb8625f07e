/**
 * The agent service example over real HTTP: started as `npm run example:agent` starts it, on a
 * free port, against the local OpenAI-compatible test server, with JSON files in a temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  runExample,
  startExample,
  type ExampleService,
} from '@agent-memory/test-support/example-process';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';

describe('agent service example', () => {
  let llm: FakeLlm;
  let service: ExampleService;
  let baseUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'agent-example-'));

  beforeAll(async () => {
    llm = await startFakeLlm({ defaultReply: (body) => `${body.messages.length} messages seen` });
    service = await startExample(
      'agent-service',
      [],
      { PORT: '0', MEMORY_DIR: dir, LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'agent-model' },
      /listening on (http:\S+)/,
    );
    baseUrl = /listening on (http:\S+)/.exec(service.output())![1]!;
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const chat = (sessionId: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}/chat/${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('answers turns with the session history sent to the model', async () => {
    const first = await chat('alice', { message: 'I live in Lisbon.' });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ answer: '2 messages seen', saved: true });

    const sent = llm.requests.length;
    const second = await chat('alice', { message: 'Where do I live?' });
    expect(await second.json()).toEqual({ answer: '4 messages seen', saved: true });
    expect(llm.requests[sent]!.body.messages.map((m) => m.content)).toEqual([
      'You are a helpful assistant.',
      'I live in Lisbon.',
      '2 messages seen',
      'Where do I live?',
    ]);

    // Another session starts empty.
    expect(await (await chat('bob', { message: 'Hello' })).json()).toEqual({
      answer: '2 messages seen',
      saved: true,
    });
  });

  it('stores a retried request once (Idempotency-Key)', async () => {
    const key = { 'idempotency-key': 'retry-1' };
    await chat('carol', { message: 'once' }, key);
    await chat('carol', { message: 'once' }, key);
    const sent = llm.requests.length;
    await chat('carol', { message: 'how many?' });
    expect(llm.requests[sent]!.body.messages).toHaveLength(4);
  });

  it('refuses a bad body or session id with 400', async () => {
    expect((await chat('alice', { text: 'no message field' })).status).toBe(400);
    const badId = await chat('bad%20id!', { message: 'hi' });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ code: 'INVALID_SESSION_ID' });
  });

  it('answers the Kubernetes probes', async () => {
    const live = await fetch(`${baseUrl}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${baseUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', info: { memory: { status: 'up' } } });
  });

  it('says what to set when no LLM is configured', async () => {
    const run = await runExample('agent-service', [], { env: { PORT: '0', MEMORY_DIR: dir } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Set LLM_BASE_URL and LLM_MODEL');
  }, 60_000);
});
