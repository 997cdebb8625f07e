import {
  AIMessage,
  ChatMessage,
  HumanMessage,
  RemoveMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { Command, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testAgentGraph, texts } from '@agent-memory/test-support/langgraph-graph';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import type { MemoryBackend } from '../core/backend.interface';
import { ThreadMessagesMissingError } from '../core/errors';
import { KEEP_LOG_META_KEY } from '../core/kept-log';
import { jsonFileBackend } from '../jsonfile/json-file.backend';
import { fromBaseMessages, toBaseMessages } from '../langchain/base-message.converter';
import { instrumentBackend } from '../observability/instrumented.backend';
import { postgresBackend } from '../postgres/postgres.backend';
import { simpleBackend } from '../simple/simple.backend';
import { checkpointStorageFor } from './checkpoint-storage-for';
import { MemoryCheckpointSaver } from './memory-checkpoint.saver';

const serde = new JsonPlusSerializer();
const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

async function stateOf(saver: MemoryCheckpointSaver, threadId: string): Promise<BaseMessage[]> {
  const tuple = await saver.getTuple(config(threadId));
  return (tuple?.checkpoint.channel_values.messages as BaseMessage[] | undefined) ?? [];
}

async function logCount(backend: MemoryBackend, threadId: string): Promise<number> {
  return (await (await checkpointStorageFor(backend)).messageLogHead(threadId)).count;
}

describe('MemoryCheckpointSaver: a thread is a session', () => {
  it('keeps the conversation in the session, tool calls and ids included, each message once', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    for (const q of ['weather', 'news', 'sport']) {
      await graph.invoke({ messages: [new HumanMessage(q)] }, config('chat-1'));
    }
    const state = await stateOf(saver, 'chat-1');
    expect(state).toHaveLength(12);
    // What the dashboard lists and opens: the thread as a session.
    const listed = (await backend.list({})).items.find((item) => item.id === 'chat-1');
    expect(listed).toMatchObject({ messages: 12, stored: 12 });
    const session = await (await backend.open('chat-1')).retrieve();
    expect(session).toEqual(fromBaseMessages(state));
    const back = toBaseMessages(session);
    expect(back.map((m) => m.id)).toEqual(state.map((m) => m.id));
    expect(texts(back)).toEqual(texts(state));
    // More than twelve checkpoints, yet every message is stored once: in the session, which
    // keeps its whole log for them; none in the checkpoint storage's own log.
    expect(await (await backend.open('chat-1')).entries()).toHaveLength(12);
    expect(await logCount(backend, 'chat-1')).toBe(0);
    expect(await (await backend.open('chat-1')).meta()).toEqual({
      [KEEP_LOG_META_KEY]: 'langgraph',
    });
    // Read back by a saver that never saw them: the same messages, field for field.
    const fresh = await MemoryCheckpointSaver.open(backend);
    const replayed = await stateOf(fresh, 'chat-1');
    const serialized = (messages: BaseMessage[]) =>
      Promise.all(
        messages.map(async (m) =>
          JSON.parse(new TextDecoder().decode((await serde.dumpsTyped(m))[1])),
        ),
      );
    expect(await serialized(replayed)).toEqual(await serialized(state));
    let checkpoints = 0;
    for await (const _ of saver.list(config('chat-1'))) checkpoints++;
    expect(checkpoints).toBeGreaterThan(12);
  });

  it('through a decorated backend too', async () => {
    const backend = instrumentBackend(simpleBackend({ capacity: 1000 }));
    const graph = testAgentGraph(await MemoryCheckpointSaver.open(backend));
    await graph.invoke({ messages: [new HumanMessage('hi')] }, config('chat-2'));
    expect(await (await backend.open('chat-2')).retrieve()).toHaveLength(4);
  });

  it('a fork appends its new messages to the session and replays exactly', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    await graph.invoke({ messages: [new HumanMessage('one')] }, config('fork'));
    await graph.invoke({ messages: [new HumanMessage('two')] }, config('fork'));
    // The checkpoint after the first turn: resume from it with another question.
    let first: { configurable?: Record<string, unknown> } | undefined;
    for await (const tuple of saver.list(config('fork'))) {
      const messages = tuple.checkpoint.channel_values.messages as BaseMessage[] | undefined;
      if (messages?.length === 4 && tuple.metadata?.source === 'loop') first = tuple.config;
    }
    await graph.invoke({ messages: [new HumanMessage('three')] }, first!);
    const state = await stateOf(saver, 'fork');
    expect(texts(state).filter((t) => t.startsWith('human'))).toEqual(['human:one', 'human:three']);
    // The session holds both branches once, as the thread's append log.
    expect(await (await backend.open('fork')).entries()).toHaveLength(12);
    expect(await logCount(backend, 'fork')).toBe(0);
    const session = await (await backend.open('fork')).retrieve();
    expect(texts(toBaseMessages(session))).toEqual([
      ...texts(state).slice(0, 4),
      'human:two',
      ...texts(toBaseMessages(session)).slice(5, 8),
      ...texts(state).slice(4),
    ]);
  });

  it('a RemoveMessage changes the checkpoint, not the session, and a later turn is appended', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    await graph.invoke({ messages: [new HumanMessage('one')] }, config('rm'));
    const before = await stateOf(saver, 'rm');
    await graph.updateState(config('rm'), {
      messages: [new RemoveMessage({ id: before[1]!.id! })],
    });
    expect(texts(await stateOf(saver, 'rm'))).toEqual(texts([before[0]!, ...before.slice(2)]));
    await graph.invoke({ messages: [new HumanMessage('two')] }, config('rm'));
    const session = await (await backend.open('rm')).retrieve();
    expect(texts(toBaseMessages(session))).toEqual([
      ...texts(before),
      ...texts((await stateOf(saver, 'rm')).slice(3)),
    ]);
  });

  it("the in-process store's capacity does not evict a thread's messages", async () => {
    const backend = simpleBackend({ capacity: 3 });
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    await graph.invoke({ messages: [new HumanMessage('one')] }, config('small'));
    await graph.invoke({ messages: [new HumanMessage('two')] }, config('small'));
    expect(await (await backend.open('small')).entries()).toHaveLength(8);
    const fresh = await MemoryCheckpointSaver.open(backend);
    expect(texts(await stateOf(fresh, 'small')).filter((t) => t.startsWith('human'))).toEqual([
      'human:one',
      'human:two',
    ]);
  });

  it('a session cleared under its checkpoints is named when they are read', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    await testAgentGraph(saver).invoke({ messages: [new HumanMessage('one')] }, config('gone'));
    await (await backend.open('gone')).clear();
    const fresh = await MemoryCheckpointSaver.open(backend);
    await expect(fresh.getTuple(config('gone'))).rejects.toThrow(ThreadMessagesMissingError);
    await expect(fresh.getTuple(config('gone'))).rejects.toThrow(/thread "gone".*message 1/);
  });

  it('messages the converters would change are kept exactly in the checkpoint storage', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('answer', () => ({
        messages: [
          new ChatMessage({ content: 'from a custom role', role: 'critic', id: 'c1' }),
          new AIMessage({ content: 'done', id: 'a1' }),
        ],
      }))
      .addEdge(START, 'answer')
      .compile({ checkpointer: saver });
    await graph.invoke(
      { messages: [new HumanMessage({ content: 'hi', id: 'h1' })] },
      config('odd'),
    );
    const fresh = await MemoryCheckpointSaver.open(backend);
    const state = await stateOf(fresh, 'odd');
    expect(state.map((m) => [m.getType(), m.id, m.content])).toEqual([
      ['human', 'h1', 'hi'],
      ['generic', 'c1', 'from a custom role'],
      ['ai', 'a1', 'done'],
    ]);
    expect((state[1] as ChatMessage).role).toBe('critic');
    // The one message our model has no role for is in the log; the others in the session.
    expect(await logCount(backend, 'odd')).toBe(1);
    expect(texts(toBaseMessages(await (await backend.open('odd')).retrieve()))).toEqual([
      'human:hi',
      'ai:done',
    ]);
  });

  it('a thread id that is not a session id is checkpointed without a session', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    await testAgentGraph(saver).invoke(
      { messages: [new HumanMessage('hi')] },
      config('user:42/chat'),
    );
    expect(await stateOf(saver, 'user:42/chat')).toHaveLength(4);
    expect((await backend.list({})).items).toEqual([]);
  });

  it('deleteThread removes the checkpoints and the session', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    await testAgentGraph(saver).invoke({ messages: [new HumanMessage('hi')] }, config('gone'));
    expect(await backend.inspect('gone')).not.toBeNull();
    await saver.deleteThread('gone');
    expect(await backend.inspect('gone')).toBeNull();
    expect(await saver.getTuple(config('gone'))).toBeUndefined();
    expect(await logCount(backend, 'gone')).toBe(0);
  });

  it('erase by resource and a conditional delete (what retention does) remove threads too', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    await graph.invoke({ messages: [new HumanMessage('hi')] }, config('ada-1'));
    await graph.invoke({ messages: [new HumanMessage('hi')] }, config('bob-1'));
    await (await backend.open('ada-1')).setMeta('resource', 'user-ada');
    expect((await backend.erase({ resource: 'user-ada' })).sessionIds).toEqual(['ada-1']);
    expect(await saver.getTuple(config('ada-1'))).toBeUndefined();
    expect(await logCount(backend, 'ada-1')).toBe(0);
    await backend.delete('bob-1', { ifUnchanged: (await backend.inspect('bob-1'))! });
    expect(await saver.getTuple(config('bob-1'))).toBeUndefined();
  });

  it('prune keeps the newest checkpoint with what it needs, or deletes them all', async () => {
    const backend = simpleBackend({ capacity: 1000 });
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    await graph.invoke({ messages: [new HumanMessage('one')] }, config('old'));
    await graph.invoke({ messages: [new HumanMessage('two')] }, config('old'));
    const before = await saver.getTuple(config('old'));
    await saver.prune(['old']);
    const kept = [];
    for await (const tuple of saver.list(config('old'))) kept.push(tuple);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.checkpoint).toEqual(before!.checkpoint);
    // The graph goes on from the kept checkpoint.
    await graph.invoke({ messages: [new HumanMessage('three')] }, config('old'));
    expect(await stateOf(saver, 'old')).toHaveLength(12);
    await saver.prune(['old'], { strategy: 'delete' });
    expect(await saver.getTuple(config('old'))).toBeUndefined();
    expect(await backend.inspect('old')).not.toBeNull();
    await expect(saver.prune(['old'], { strategy: 'all' as never })).rejects.toThrow(/keep_latest/);
  });
});

describe('MemoryCheckpointSaver: an interrupted run resumes after a restart', () => {
  const schemas = new TestSchemas('lg_restart');
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lg-restart-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await schemas.cleanup();
  });

  const stores: Array<[string, () => Promise<MemoryBackend>]> = [
    ['JSON files', async () => jsonFileBackend({ dir })],
    [
      'PostgreSQL',
      (() => {
        const table = schemas.nextTable();
        return () => postgresBackend({ url: schemas.url, table });
      })(),
    ],
  ];

  it.each(stores)('on %s, by a new backend and saver over the same storage', async (_, open) => {
    const first = await open();
    const graph = testAgentGraph(await MemoryCheckpointSaver.open(first), { approval: true });
    await graph.invoke({ messages: [new HumanMessage('flights')] }, config('trip'));
    expect((await graph.getState(config('trip'))).next).toEqual(['tools']);
    await first.close();

    const second = await open();
    try {
      const resumed = testAgentGraph(await MemoryCheckpointSaver.open(second), { approval: true });
      const state = await resumed.getState(config('trip'));
      expect(state.tasks[0]?.interrupts[0]?.value).toBe('run lookup?');
      const result = await resumed.invoke(new Command({ resume: 'yes' }), config('trip'));
      expect(texts(result.messages as BaseMessage[])).toEqual([
        'human:flights',
        'ai:',
        'tool:found flights (yes)',
        'ai:answer: found flights (yes)',
      ]);
      const session = await (await second.open('trip')).retrieve();
      expect(texts(toBaseMessages(session))).toEqual(texts(result.messages as BaseMessage[]));
    } finally {
      await second.close();
    }
  });
});
