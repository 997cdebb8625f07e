/**
 * NATS JetStream KV: `NatsMemory.save` of one turn (user + assistant) against a bare KV loop doing
 * the same append (get, parse, push, stringify, update with the revision read, retry on a lost
 * race), on sessions of ~100 and ~1,000 messages. Each case spreads its saves over a pool of
 * sessions so that they grow little while measured (the notes say by how much).
 */
import { assistantMessage, userMessage, type Message } from '@agent-memory/memory';
import { natsBackend, type NatsBackend, type NatsMemory } from '@agent-memory/memory/nats';
import type { KV } from 'nats';
import { measure, ratio, type BenchResult, type BenchSuite } from './harness';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

function history(count: number): Message[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? userMessage(`question ${i}: what does the deploy script do when the health check fails?`)
      : assistantMessage(
          `answer ${i}: it rolls back to the previous release and pages the on-call.`,
        ),
  );
}

const turn = (i: number): Message[] => [
  userMessage(`new question ${i}`),
  assistantMessage(`new answer ${i}`),
];

/** The same append done by hand on the KV: what a minimal correct client would do. */
async function bareAppend(kv: KV, key: string, messages: Message[]): Promise<void> {
  for (;;) {
    const entry = await kv.get(key);
    const doc = JSON.parse(new TextDecoder().decode(entry!.value)) as {
      messages: Message[];
      saved: number;
    };
    doc.messages.push(...messages);
    doc.saved += messages.length;
    try {
      await kv.update(key, JSON.stringify(doc), entry!.revision);
      return;
    } catch (error) {
      if (!/wrong last sequence/i.test((error as Error).message)) throw error;
    }
  }
}

async function seed(
  backend: NatsBackend,
  prefix: string,
  sessions: number,
  size: number,
): Promise<string[]> {
  const ids = Array.from({ length: sessions }, (_, i) => `${prefix}-${i}`);
  const messages = history(size);
  for (const id of ids) await (await backend.open(id)).save(messages);
  return ids;
}

/** Messages added per session, on average, by `saves` one-turn saves spread over `pool` sessions. */
const grown = (saves: number, pool: number): string => ((2 * saves) / pool).toFixed(1);

export const suite: BenchSuite = {
  name: 'NATS JetStream KV',
  async run() {
    const bucket = `bench_${process.pid}_${Date.now().toString(36)}`;
    const backend = await natsBackend({ servers: NATS_URL, bucket });
    const results: BenchResult[] = [];
    const notes: string[] = [];
    try {
      for (const [size, pool] of [
        [100, 512],
        [1000, 64],
      ] as const) {
        const caseName = `save one turn, ~${size} messages`;
        const oursIds = await seed(backend, `ours-${size}`, pool, size);
        const bareIds = await seed(backend, `bare-${size}`, pool, size);
        const stores = await Promise.all(
          oursIds.map((id) => backend.open(id) as Promise<NatsMemory>),
        );
        const bytes = (await backend.kv.get(oursIds[0]!))!.length;

        let i = 0;
        const ours = await measure(caseName, 'agent-memory', () =>
          stores[i++ % pool]!.save(turn(i)),
        );
        let j = 0;
        const bare = await measure(caseName, 'bare KV get+update', () =>
          bareAppend(backend.kv, bareIds[j++ % pool]!, turn(j)),
        );
        results.push(ours, bare);
        notes.push(
          `~${size} messages (${Math.round(bytes / 1024)} KiB value): agent-memory ${ratio(ours.opsPerSec, bare.opsPerSec)} ` +
            `the bare loop; sessions grew by ${grown(i, pool)} and ${grown(j, pool)} messages on average ` +
            `(${pool} sessions per subject)`,
        );
      }
      notes.push(
        'agent-memory validates every message and tries the revision it last wrote first (one round trip ' +
          'when nobody else wrote); the bare loop reads before every update (two round trips).',
      );
    } finally {
      await backend.kv.destroy().catch(() => undefined);
      await backend.close();
    }
    return { results, notes };
  },
};
