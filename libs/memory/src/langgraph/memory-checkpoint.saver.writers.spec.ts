/**
 * On each store: two writers on one thread, where two savers (each on its own backend over the
 * same storage) take turns on a thread, each with a stale idea of where the thread's message log
 * ends (what it appended last), the order forced by awaiting each call; and `prune`, which must
 * leave what the kept checkpoint needs.
 */
import { ChatMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testAgentGraph, texts } from '@agent-memory/test-support/langgraph-graph';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { testNatsUrl } from '@agent-memory/test-support/services';
import type { MemoryBackend } from '../core/backend.interface';
import type { CoveredLogPruning } from '../core/covered-log-pruning';
import { jsonFileBackend } from '../jsonfile/json-file.backend';
import { natsBackend } from '../nats/nats.backend';
import { postgresBackend } from '../postgres/postgres.backend';
import { simpleBackend } from '../simple/simple.backend';
import { checkpointStorageFor } from './checkpoint-storage-for';
import { MemoryCheckpointSaver } from './memory-checkpoint.saver';

const schemas = new TestSchemas('lg_writers');
const buckets = new TestBuckets('lg_writers');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lg-writers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await schemas.cleanup();
  await buckets.cleanup();
});

/** Opens two backends over one storage (the in-process store: one backend, two savers). */
type Pair = () => Promise<[MemoryBackend, MemoryBackend]>;
const STORES: Array<[string, Pair]> = [
  [
    'simple',
    async () => {
      const backend = simpleBackend({ capacity: 1000, pruneCompacted: true });
      return [backend, backend];
    },
  ],
  [
    'JSON files',
    async () => [
      jsonFileBackend({ dir, pruneCompacted: true }),
      jsonFileBackend({ dir, pruneCompacted: true }),
    ],
  ],
  [
    'PostgreSQL',
    async () => {
      const table = schemas.nextTable();
      const first = await postgresBackend({ url: schemas.url, table, pruneCompacted: true });
      return [first, await postgresBackend({ url: schemas.url, table, pruneCompacted: true })];
    },
  ],
  [
    'NATS',
    async () => {
      const bucket = buckets.next();
      const first = await natsBackend({ servers: testNatsUrl(), bucket });
      return [first, await natsBackend({ servers: testNatsUrl(), bucket })];
    },
  ],
];

describe.each(STORES)('two writers on one thread, on %s', (_, openPair) => {
  it('each goes on from the thread as the other left it, every message stored once', async () => {
    const [a, b] = await openPair();
    try {
      const config = { configurable: { thread_id: 'shared' } };
      const graphA = testAgentGraph(await MemoryCheckpointSaver.open(a));
      const graphB = testAgentGraph(await MemoryCheckpointSaver.open(b));
      await graphA.invoke({ messages: [new HumanMessage('one')] }, config);
      await graphB.invoke({ messages: [new HumanMessage('two')] }, config);
      // A last appended after 4 messages; the log now has 8.
      const result = await graphA.invoke({ messages: [new HumanMessage('three')] }, config);
      const messages = result.messages as BaseMessage[];
      expect(texts(messages).filter((t) => t.startsWith('human'))).toEqual([
        'human:one',
        'human:two',
        'human:three',
      ]);
      const reread = await (await MemoryCheckpointSaver.open(b)).getTuple(config);
      expect(texts(reread!.checkpoint.channel_values.messages as BaseMessage[])).toEqual(
        texts(messages),
      );
      // Each message once, in the session; none in the checkpoint storage's log.
      expect(await (await a.open('shared')).entries()).toHaveLength(12);
      expect((await (await checkpointStorageFor(a)).messageLogHead('shared')).count).toBe(0);
    } finally {
      await a.close();
      if (b !== a) await b.close();
    }
  });

  it('a message kept in the log and edited keeps its place among the others', async () => {
    const [backend, other] = await openPair();
    try {
      const config = { configurable: { thread_id: 'edited' } };
      // ChatMessages with a custom role have no session form: both go to the thread's log.
      const critic = (id: string, content: string) =>
        new ChatMessage({ id, content, role: 'critic' });
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('review', () => ({ messages: [critic('c1', 'first'), critic('c2', 'second')] }))
        .addEdge(START, 'review')
        .compile({ checkpointer: await MemoryCheckpointSaver.open(backend) });
      await graph.invoke({ messages: [new HumanMessage('review this')] }, config);
      // Replaced by id in place: the edited c1 is stored after c2 but stays before it.
      await graph.updateState(config, { messages: [critic('c1', 'first, edited')] });
      const fresh = await MemoryCheckpointSaver.open(other);
      const messages = (await fresh.getTuple(config))!.checkpoint.channel_values
        .messages as BaseMessage[];
      expect(messages.map((m) => [m.id ?? '', m.content])).toEqual([
        [messages[0]!.id ?? '', 'review this'],
        ['c1', 'first, edited'],
        ['c2', 'second'],
      ]);
      expect((await (await checkpointStorageFor(backend)).messageLogHead('edited')).count).toBe(3);
    } finally {
      await backend.close();
      if (other !== backend) await other.close();
    }
  });

  it('compacting the session with pruning drops nothing a checkpoint replays', async () => {
    const [backend, other] = await openPair();
    try {
      const config = { configurable: { thread_id: 'compacted' } };
      const saver = await MemoryCheckpointSaver.open(backend);
      const graph = testAgentGraph(saver);
      await graph.invoke({ messages: [new HumanMessage('one')] }, config);
      await graph.invoke({ messages: [new HumanMessage('two')] }, config);
      const before = await saver.getTuple(config);
      // What compaction does (pruneCompacted) and what retention's keep-summary does after it.
      const session = await backend.open('compacted');
      const { tail } = await session.loadSnapshot();
      await session.saveSnapshot({ summary: 'asked one' }, tail[3]!.cursor, null);
      const pruning = session as unknown as Partial<CoveredLogPruning>;
      expect(await pruning.pruneCovered!()).toBe(0);
      expect(await (await backend.open('compacted')).entries()).toHaveLength(8);
      expect((await (await backend.open('compacted')).loadSnapshot()).snapshot).toMatchObject({
        summary: 'asked one',
      });
      const fresh = await MemoryCheckpointSaver.open(other);
      expect((await fresh.getTuple(config))!.checkpoint).toEqual(before!.checkpoint);
    } finally {
      await backend.close();
      if (other !== backend) await other.close();
    }
  });

  it('prune keeps the newest checkpoint of the thread with what it needs, then deletes them', async () => {
    const [backend, other] = await openPair();
    try {
      const config = { configurable: { thread_id: 'pruned' } };
      const saver = await MemoryCheckpointSaver.open(backend);
      const graph = testAgentGraph(saver);
      await graph.invoke({ messages: [new HumanMessage('one')] }, config);
      await graph.invoke({ messages: [new HumanMessage('two')] }, config);
      const before = await saver.getTuple(config);
      await saver.prune(['pruned']);
      const kept = [];
      for await (const tuple of saver.list(config)) kept.push(tuple);
      expect(kept.map((t) => t.config.configurable?.checkpoint_id)).toEqual([
        before!.config.configurable?.checkpoint_id,
      ]);
      const fresh = await MemoryCheckpointSaver.open(backend);
      expect((await fresh.getTuple(config))!.checkpoint).toEqual(before!.checkpoint);
      await graph.invoke({ messages: [new HumanMessage('three')] }, config);
      expect(
        texts((await fresh.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[]),
      ).toHaveLength(12);
      await saver.prune(['pruned'], { strategy: 'delete' });
      expect(await fresh.getTuple(config)).toBeUndefined();
      expect(await backend.inspect('pruned')).not.toBeNull();
    } finally {
      await backend.close();
      if (other !== backend) await other.close();
    }
  });
});
