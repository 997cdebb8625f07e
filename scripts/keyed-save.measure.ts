/**
 * What an idempotency key costs a save, on JSON files and on NATS, against a bare write of the
 * same data in the same run (docs/benchmarks.md, "Idempotency keys"):
 *
 *   node -r @swc-node/register scripts/keyed-save.measure.ts [rounds]
 *
 * JSON files, a plain session of 20 and of 100 short messages, each save a two-message turn:
 * - bare: stringify the whole array, write a temp file, fsync, rename (no read, no folder fsync);
 * - bare + folder fsync: the same, then fsync the folder (what makes the rename survive a power cut);
 * - agent-memory without a key, and with a fresh key per save (its plain save appends the turn in
 *   place over the array's closing bracket: one write and one fdatasync, plus the key copy's
 *   line with a key).
 * NATS, the same sessions: a bare `kv.update` on the revision it last wrote, and agent-memory's
 * save without and with a key (one store kept open, as a server does).
 *
 * The cases take turns save by save, in a new random order each round, so all see the same load
 * and none always follows the same case; each session is put back to its
 * starting size (untimed) every 10 saves. Prints the median and the mean of each, in ms, and the
 * median's ratio to the first case's (the bare write).
 */
import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import {
  assistantMessage,
  jsonFileBackend,
  userMessage,
  type MemoryBackend,
  type Message,
  type SessionStore,
} from '@agent-memory/memory';
import { natsBackend } from '@agent-memory/memory/nats';

const ROUNDS = Number(process.argv[2] ?? 300);
const RESET_EVERY = 10;
const turn: Message[] = [
  userMessage('What changed since yesterday?'),
  assistantMessage('Two tests were fixed.'),
];
const prefill = (count: number): Message[] =>
  Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? userMessage(`question ${i}: how do I configure the store?`)
      : assistantMessage(`answer ${i}: pass it in forRoot.`),
  );

/** Makes a rename in `dir` durable, as a careful file store does. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** One subject: a save, and how to put its session back to the starting size. */
interface Subject {
  name: string;
  save(): Promise<void>;
  reset(): Promise<void>;
  times: number[];
}

async function bareFile(dir: string, size: number, syncFolder: boolean): Promise<Subject> {
  const path = join(dir, `bare-${syncFolder ? 'sync' : 'plain'}.json`);
  let messages: Message[] = [];
  const write = async () => {
    const temp = `${path}.tmp`;
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(JSON.stringify(messages));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    if (syncFolder) await syncDirectory(dir);
  };
  return {
    name: syncFolder ? 'bare write, fsync, rename, folder fsync' : 'bare write, fsync, rename',
    times: [],
    save: async () => {
      messages = [...messages, ...turn];
      await write();
    },
    reset: async () => {
      messages = prefill(size);
      await write();
    },
  };
}

let sessionCounter = 0;
/** Saves through `backend`: a store opened per save (as a request handler does), or kept open. */
function storeSubject(
  backend: MemoryBackend,
  size: number,
  keyed: boolean,
  openPerSave: boolean,
): Subject {
  let id = '';
  let saves = 0;
  let kept: SessionStore | undefined;
  return {
    name: `agent-memory, ${keyed ? 'a key per save' : 'no key'}, ${openPerSave ? 'opened per save' : 'kept open'}`,
    times: [],
    save: async () => {
      const memory = openPerSave ? await backend.open(id) : kept!;
      await memory.save(turn, keyed ? { idempotencyKey: `key-${id}-${++saves}` } : {});
    },
    reset: async () => {
      id = `s${++sessionCounter}`;
      kept = await backend.open(id);
      await kept.save(prefill(size));
    },
  };
}

/** The four agent-memory subjects of a backend: keyed or not, opened per save or kept open. */
const storeSubjects = (backend: MemoryBackend, size: number): Subject[] =>
  [true, false].flatMap((openPerSave) =>
    [false, true].map((keyed) => storeSubject(backend, size, keyed, openPerSave)),
  );

async function run(subjects: Subject[]): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    if (round % RESET_EVERY === 0) for (const subject of subjects) await subject.reset();
    // A new order each round: no case always follows the same one (a folder fsync, say).
    for (const subject of shuffled(subjects)) {
      const started = performance.now();
      await subject.save();
      subject.times.push(performance.now() - started);
    }
  }
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function report(title: string, subjects: Subject[]): void {
  console.log(`\n${title}`);
  const medianOf = (s: Subject) =>
    [...s.times].sort((a, b) => a - b)[Math.floor(s.times.length / 2)]!;
  const base = medianOf(subjects[0]!);
  for (const s of subjects) {
    const median = medianOf(s);
    const mean = s.times.reduce((a, b) => a + b, 0) / s.times.length;
    const ratio = (median / base).toFixed(2);
    console.log(`| ${s.name} | ${median.toFixed(2)} ms | ${mean.toFixed(2)} ms | ${ratio}× |`);
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'keyed-save-measure-'));
  const natsUrl = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
  const bucket = `keyed_measure_${process.pid}`;
  const files = jsonFileBackend({ dir: join(dir, 'sessions') });
  const nats = await natsBackend({ servers: natsUrl, bucket });
  const nc = await connect({ servers: natsUrl });
  try {
    for (const size of [20, 100]) {
      const fileSubjects = [
        await bareFile(dir, size, false),
        await bareFile(dir, size, true),
        ...storeSubjects(files, size),
      ];
      await run(fileSubjects);
      report(`JSON files, ${size} messages + turns (median, mean, median / bare)`, fileSubjects);

      const kv = await nc.jetstream().views.kv(bucket);
      let bareMessages: Message[] = [];
      let revision = 0;
      const bareKv: Subject = {
        name: 'bare kv.update on its last revision',
        times: [],
        save: async () => {
          bareMessages = [...bareMessages, ...turn];
          revision = await kv.update('bare', JSON.stringify(bareMessages), revision);
        },
        reset: async () => {
          bareMessages = prefill(size);
          revision = await kv.put('bare', JSON.stringify(bareMessages));
        },
      };
      const natsSubjects = [bareKv, ...storeSubjects(nats, size)];
      await run(natsSubjects);
      report(`NATS, ${size} messages + turns (median, mean, median / bare)`, natsSubjects);
    }
  } finally {
    await files.close();
    await nats.close();
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
    await nc.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
