import {
  assistantMessage,
  OpenAiCompatibleClient,
  SimpleMemory,
  simpleBackend,
  SnapshotsUnsupportedError,
  SUMMARY_PREFIX,
  systemMessage,
  textContent,
  toolResultMessage,
  userMessage,
} from '@agent-memory/memory';
import { types } from 'node:util';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { conversation, texts } from '@agent-memory/conformance';

describe('SimpleMemory', () => {
  it('refuses a capacity below 1', () => {
    expect(() => new SimpleMemory(0)).toThrow(RangeError);
    expect(() => new SimpleMemory(Number.NaN)).toThrow(RangeError);
  });

  it('evicts the oldest messages past capacity, cursors counting on', async () => {
    const memory = new SimpleMemory(3);
    await memory.save(conversation(5));
    const { tail } = await memory.loadSnapshot();
    expect(texts(tail.map((e) => e.message))).toEqual(['u2', 'a3', 'u4']);
    expect(tail.map((e) => e.cursor)).toEqual([3, 4, 5]);
    await memory.save(conversation(1, 5));
    expect((await memory.loadSnapshot()).tail.map((e) => e.cursor)).toEqual([4, 5, 6]);
  });

  it('drops a tool result whose call was evicted', async () => {
    const memory = new SimpleMemory(2);
    await memory.save([
      assistantMessage('', [
        { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
      ]),
      toolResultMessage('c1', 'r'),
      userMessage('next'),
    ]);
    expect(texts(await memory.retrieve())).toEqual(['next']);
    expect((await memory.loadSnapshot()).tail).toHaveLength(2);
  });

  it('hands out frozen messages, so a caller cannot change what is stored', async () => {
    const memory = new SimpleMemory(10);
    const input = userMessage('original');
    await memory.save([input]);
    input.parts[0]!.text = 'changed by the caller';
    const [stored] = await memory.retrieve();
    expect(() => {
      stored!.parts[0]!.text = 'changed';
    }).toThrow(TypeError);
    expect(texts(await memory.retrieve())).toEqual(['original']);
  });

  it('refuses snapshots when the deprecated summarization option is set', async () => {
    // Snapshots are refused before anything could reach the LLM.
    const llm = { complete: () => Promise.reject(new Error('the LLM must not be called')) };
    const memory = new SimpleMemory(10, { summarization: { llm, threshold: 4, size: 2 } });
    await memory.save(conversation(1));
    await expect(memory.saveSnapshot({ summary: 's' }, 1, null)).rejects.toThrow(
      SnapshotsUnsupportedError,
    );
  });
});

describe('SimpleMemory: deprecated summarization', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm.close());
  const client = () =>
    new OpenAiCompatibleClient({ baseUrl: llm.baseUrl, apiKey: 'k', model: 'm' });

  it('replaces the oldest `size` messages by one summary system message once the threshold is reached', async () => {
    const memory = new SimpleMemory(100, {
      summarization: { llm: client(), threshold: 4, size: 2 },
    });
    await memory.save(conversation(3));
    expect(llm.requests).toHaveLength(0);
    llm.reply('they greeted each other');
    await memory.save(conversation(1, 3));
    const context = await memory.retrieve();
    expect(context[0]).toMatchObject({ role: 'system' });
    expect(textContent(context[0]!)).toBe(`${SUMMARY_PREFIX}they greeted each other`);
    expect(texts(context.slice(1))).toEqual(['u2', 'a3']);
    expect(JSON.stringify(llm.requests[0]!.body.messages)).toContain('u0');
  });

  it('keeps every message and reports the error when the LLM fails; the next save tries again', async () => {
    const errors: unknown[] = [];
    const memory = new SimpleMemory(100, {
      summarization: {
        llm: client(),
        threshold: 2,
        size: 1,
        onError: (error) => errors.push(error),
      },
    });
    llm.failNext(503, 'overloaded');
    await memory.save(conversation(2));
    expect(texts(await memory.retrieve())).toEqual(['u0', 'a1']);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/overloaded/);
    llm.reply('second try');
    await memory.save(conversation(1, 2));
    expect(await memory.retrieve()).toEqual([
      systemMessage(`${SUMMARY_PREFIX}second try`),
      ...conversation(2, 1),
    ]);
  });

  it('keeps what is saved while the LLM is answering; a summary planned on an older snapshot is dropped', async () => {
    const errors: unknown[] = [];
    const memory = new SimpleMemory(100, {
      summarization: { llm: client(), threshold: 4, size: 2, onError: (e) => errors.push(e) },
    });
    await memory.save(conversation(3));
    const held = llm.holdNext('late');
    const requestsBefore = llm.requests.length;
    const saving = memory.save(conversation(1, 3));
    await llm.waitForRequests(requestsBefore + 1);
    // This save plans on the same view, gets its answer first and stores its snapshot.
    llm.reply('first');
    await memory.save([userMessage('meanwhile')]);
    held.release();
    await saving;
    expect(texts(await memory.retrieve())).toEqual([
      `${SUMMARY_PREFIX}first`,
      'u2',
      'a3',
      'meanwhile',
    ]);
    // The held answer covers messages that snapshot already took: nothing written, not an error.
    expect(errors).toEqual([]);
  });

  it('is the store itself, from the constructor and from the backend: no proxy around it', async () => {
    const summarization = { llm: client(), threshold: 4, size: 2 };
    const direct = new SimpleMemory(10, { summarization });
    const opened = await simpleBackend({ capacity: 10, summarization }).open('s1');
    for (const memory of [direct, opened]) {
      expect(memory).toBeInstanceOf(SimpleMemory);
      expect(types.isProxy(memory)).toBe(false);
    }
    await expect(opened.saveSnapshot({ summary: 's' }, 1, null)).rejects.toThrow(
      SnapshotsUnsupportedError,
    );
  });
});
