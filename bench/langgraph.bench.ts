/**
 * LangGraph checkpointers on PostgreSQL, in one run: `MemoryCheckpointSaver` (on
 * `postgresBackend`, mirroring the thread into its session) beside LangGraph's own
 * `PostgresSaver`. Both see the same steps of a conversation that grows by one message a step
 * (what an agent's graph writes): a checkpoint `put` of the `messages` channel and a small
 * counter channel, then the `getTuple` a graph does when it starts a run. Then the bytes each
 * keeps (every table of its schema, indexes and TOAST included) after 10, 100 and 1,000 turns of
 * one thread (a turn: a user message and an answer, one checkpoint).
 */
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver, Checkpoint } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { Client } from 'pg';
import { MemoryCheckpointSaver } from '../libs/memory/src/langgraph';
import { postgresBackend } from '../libs/memory/src/postgres';
import { seededRandom } from '../test/support/seeded-random';
import { benchSize } from './bench-size';
import { measureInterleaved, ratio, type BenchResult, type BenchSuite } from './harness';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Messages a thread has before the timed steps: a short conversation, and a longer one. */
const SHORT_START_MESSAGES = 4;
const SHORT_STEPS = benchSize(100, 3);
const START_MESSAGES = benchSize(50, 8);
const STEPS = benchSize(300, 3);
const TURN_COUNTS = [benchSize(10, 2), benchSize(100, 4), benchSize(1000, 8)];
/** Per-step target: MemoryCheckpointSaver's mean within this factor of PostgresSaver's. */
const TARGET = 1.2;

const WORDS = (
  'the a of to and in is it you that he was for on are with as his they be at one have this ' +
  'from or had by hot word but what some we can out other were all there when up use your how ' +
  'said an each she which do their time if will way about many then them write would like so'
).split(' ');

/**
 * One message of a conversation, as long as a short chat turn (about 150 characters of seeded
 * random words: text that compresses as prose does, not as a repeated sentence would).
 */
function message(n: number): BaseMessage {
  const next = seededRandom(n + 1);
  const text = Array.from({ length: 30 }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
  return n % 2 === 0
    ? new HumanMessage({ content: text, id: `m-${n}` })
    : new AIMessage({ content: text, id: `m-${n}` });
}

/** A thread being written step by step, as a graph writes it. */
class Thread {
  private readonly messages: BaseMessage[] = [];
  private parentId: string | undefined;
  private step = 0;
  /** The channels' version, from the saver as a graph takes it. */
  private version: number | undefined;

  constructor(
    private readonly saver: BaseCheckpointSaver,
    readonly threadId: string,
  ) {}

  /** Appends `count` messages in one checkpoint, then reads the thread's latest, as a run starts. */
  async turn(count: number, read = true): Promise<void> {
    for (let i = 0; i < count; i++) this.messages.push(message(this.messages.length));
    this.step++;
    const seen = this.version ?? 0;
    this.version = this.saver.getNextVersion(this.version);
    const checkpoint: Checkpoint = {
      v: 4,
      id: uuid6(this.step),
      ts: new Date().toISOString(),
      channel_values: { messages: [...this.messages], counter: this.step },
      channel_versions: { messages: this.version, counter: this.version },
      versions_seen: { agent: { messages: seen } },
    };
    const config = {
      configurable: { thread_id: this.threadId, checkpoint_ns: '', checkpoint_id: this.parentId },
    };
    const saved = await this.saver.put(
      config,
      checkpoint,
      { source: 'loop', step: this.step, parents: {} },
      checkpoint.channel_versions,
    );
    this.parentId = saved.configurable?.checkpoint_id as string;
    if (read) await this.saver.getTuple({ configurable: { thread_id: this.threadId } });
  }
}

async function schemaBytes(client: Client, schema: string): Promise<number> {
  const { rows } = await client.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return Number(rows[0]!.bytes);
}

interface Subject {
  name: string;
  schema: string;
  saver: BaseCheckpointSaver;
  close(): Promise<void>;
}

async function openSubjects(tag: string): Promise<Subject[]> {
  const ours = `lg_bench_ours_${tag}`;
  const theirs = `lg_bench_lg_${tag}`;
  const backend = await postgresBackend({ url, table: `${ours}.conversation_memory` });
  const postgresSaver = PostgresSaver.fromConnString(url, { schema: theirs });
  await postgresSaver.setup();
  return [
    {
      name: 'MemoryCheckpointSaver',
      schema: ours,
      saver: await MemoryCheckpointSaver.open(backend),
      close: () => backend.close(),
    },
    {
      name: 'PostgresSaver',
      schema: theirs,
      saver: postgresSaver,
      close: () => postgresSaver.end(),
    },
  ];
}

async function dropSchemas(client: Client, subjects: readonly Subject[]): Promise<void> {
  for (const { schema } of subjects)
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

export const suite: BenchSuite = {
  name: 'LangGraph checkpointers on PostgreSQL',
  async run() {
    const client = new Client({ connectionString: url });
    await client.connect();
    const results: BenchResult[] = [];
    const notes: string[] = [];
    const tag = `${process.pid}_${Date.now().toString(36)}`;
    try {
      const subjects = await openSubjects(`${tag}_steps`);
      try {
        for (const [start, steps] of [
          [SHORT_START_MESSAGES, SHORT_STEPS],
          [START_MESSAGES, STEPS],
        ] as const) {
          const threads = subjects.map((s) => new Thread(s.saver, `steps-${start}`));
          for (const thread of threads) await thread.turn(start, false);
          const [ours, theirs] = await measureInterleaved(
            `put + getTuple, a ${start}-message thread growing by 1`,
            subjects.map((s, n) => ({ subject: s.name, run: () => threads[n]!.turn(1) })),
            steps,
          );
          results.push(ours!, theirs!);
          const factor = ours!.meanMs / theirs!.meanMs;
          notes.push(
            `Per step from ${start} messages, MemoryCheckpointSaver / PostgresSaver: ` +
              `${ratio(ours!.meanMs, theirs!.meanMs)} mean, ${ratio(ours!.p50Ms!, theirs!.p50Ms!)} p50 ` +
              `(target ≤ ${TARGET}× mean: ${factor <= TARGET ? 'met' : 'not met'}).`,
          );
        }
      } finally {
        for (const s of subjects) await s.close();
        await dropSchemas(client, subjects);
      }

      const sized = await openSubjects(`${tag}_bytes`);
      try {
        const baseline = await Promise.all(sized.map((s) => schemaBytes(client, s.schema)));
        const threads = sized.map((s) => new Thread(s.saver, 'long'));
        let done = 0;
        const rows: string[] = [];
        for (const turns of TURN_COUNTS) {
          for (; done < turns; done++) for (const thread of threads) await thread.turn(2, false);
          const bytes = await Promise.all(sized.map((s) => schemaBytes(client, s.schema)));
          rows.push(
            `after ${turns} turns: ` +
              sized
                .map(
                  (s, n) => `${s.name} ${(bytes[n]! - baseline[n]!).toLocaleString('en-US')} bytes`,
                )
                .join(', '),
          );
        }
        notes.push(
          'Bytes stored for one thread (tables, indexes and TOAST, beyond the empty schema):',
        );
        notes.push(...rows);
      } finally {
        for (const s of sized) await s.close();
        await dropSchemas(client, sized);
      }
    } finally {
      await client.end();
    }
    return { results, notes };
  },
};
