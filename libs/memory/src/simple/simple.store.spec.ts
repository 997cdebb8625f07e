import {
  assistantMessage,
  SimpleMemory,
  SnapshotsUnsupportedError,
  toolResultMessage,
  userMessage,
} from '@agent-memory/memory';
import { types } from 'node:util';
import { conversation, texts } from '@agent-memory/conformance';
import {
  describeLegacySummarizationConformance,
  simpleInitializer,
} from '@agent-memory/test-conformance';

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

  it('made by its constructor with the deprecated summarization option, is the store itself and refuses snapshots', async () => {
    // Snapshots are refused before anything could reach the LLM.
    const llm = { complete: () => Promise.reject(new Error('the LLM must not be called')) };
    const memory = new SimpleMemory(10, { summarization: { llm, threshold: 4, size: 2 } });
    expect(memory).toBeInstanceOf(SimpleMemory);
    expect(types.isProxy(memory)).toBe(false);
    await memory.save(conversation(1));
    await expect(memory.saveSnapshot({ summary: 's' }, 1, null)).rejects.toThrow(
      SnapshotsUnsupportedError,
    );
  });
});

// The cases another writer would run skip here: the in-process store's only writer is itself.
describeLegacySummarizationConformance('simple', {
  backends: simpleInitializer(),
  storeClass: SimpleMemory,
  secondWriter: false,
});
