/**
 * The streaming chat example over real HTTP: started as `npm run example:streaming` starts it, on
 * a free port, against the local OpenAI-compatible test server (which streams its answers), with
 * JSON files in a temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExample, type ExampleService } from '@agent-memory/test-support/example-process';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';

interface StreamChunk {
  type: string;
  messageId?: string;
  delta?: string;
}

describe('streaming chat example', () => {
  let llm: FakeLlm;
  let service: ExampleService;
  let baseUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'streaming-example-'));

  beforeAll(async () => {
    llm = await startFakeLlm({
      defaultReply: (body) => `I have seen ${body.messages.length} messages so far.`,
    });
    service = await startExample(
      'streaming-chat',
      [],
      { PORT: '0', MEMORY_DIR: dir, LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'chat-model' },
      /listening on (http:\S+)/,
    );
    baseUrl = /listening on (http:\S+)/.exec(service.output())![1]!;
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const userMessage = (id: string, text: string) => ({
    id,
    role: 'user',
    parts: [{ type: 'text', text }],
  });
  const send = (chatId: string, body: unknown, init: RequestInit = {}) =>
    fetch(`${baseUrl}/chat/${chatId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...init,
    });
  /** The UI message stream's chunks, as the AI SDK's client reads them (server-sent events). */
  const chunksOf = async (response: Response): Promise<StreamChunk[]> =>
    (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
      .map((line) => JSON.parse(line.slice('data: '.length)) as StreamChunk);
  const load = async (chatId: string) =>
    (await (await fetch(`${baseUrl}/chat/${chatId}`)).json()) as {
      id: string;
      role: string;
      parts: { type: string; text?: string }[];
    }[];

  it('streams the answer, then the next turn and a reload see the stored turn', async () => {
    const first = await send('alice', { message: userMessage('m1', 'I live in Lisbon.') });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const chunks = await chunksOf(first);
    const answerId = chunks.find((chunk) => chunk.type === 'start')?.messageId;
    expect(answerId).toEqual(expect.any(String));
    const streamed = chunks.filter((chunk) => chunk.type === 'text-delta').map((c) => c.delta);
    expect(streamed.join('')).toBe('I have seen 2 messages so far.');
    expect(llm.requests[llm.requests.length - 1]!.body.stream).toBe(true);

    const sent = llm.requests.length;
    await chunksOf(await send('alice', { message: userMessage('m2', 'Where do I live?') }));
    expect(llm.requests[sent]!.body.messages.map((m) => m.content)).toEqual([
      'You are a helpful assistant.',
      'I live in Lisbon.',
      'I have seen 2 messages so far.',
      'Where do I live?',
    ]);

    // A reload: the chat comes back from the store, with the ids the client saw.
    const chat = await load('alice');
    expect(chat.map((m) => [m.id, m.role])).toEqual([
      ['m1', 'user'],
      [answerId, 'assistant'],
      ['m2', 'user'],
      [expect.any(String), 'assistant'],
    ]);
    expect(chat[0]).toEqual(userMessage('m1', 'I live in Lisbon.'));
    expect(chat[1]!.parts.filter((p) => p.type === 'text')).toEqual([
      { type: 'text', text: 'I have seen 2 messages so far.' },
    ]);
  });

  it('stores a retried request once', async () => {
    const message = userMessage('again-1', 'Once, please.');
    await chunksOf(await send('carol', { message }));
    await chunksOf(await send('carol', { message }));
    expect((await load('carol')).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('keeps the question when the client leaves mid-answer', async () => {
    llm.hangNext();
    const before = llm.requests.length;
    const leave = new AbortController();
    const pending = send(
      'dave',
      { message: userMessage('q1', 'Are you there?') },
      {
        signal: leave.signal,
      },
    ).then((response) => response.text());
    await llm.waitForRequests(before + 1);
    leave.abort();
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 100 && (await load('dave')).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await load('dave')).toEqual([userMessage('q1', 'Are you there?')]);
  });

  it('refuses a bad body or chat id with 400', async () => {
    expect((await send('alice', { text: 'no message' })).status).toBe(400);
    const badPart = await send('alice', {
      message: { id: 'm9', role: 'user', parts: [{ type: 'text', text: 'a\u0000b' }] },
    });
    expect(badPart.status).toBe(400);
    expect(await badPart.json()).toMatchObject({ code: 'INVALID_MESSAGE' });
    const badId = await send('bad%20id!', { message: userMessage('x', 'hi') });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ code: 'INVALID_SESSION_ID' });
  });
});
