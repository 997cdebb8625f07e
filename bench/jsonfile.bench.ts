/**
 * The JSON-file store against a bare careful baseline in the same run, on the same disk
 * (os.tmpdir(), a real fsync per save):
 *
 * - bare save: read the session's JSON array, parse, append, stringify, write a temp file, fsync,
 *   rename; one file per session (what a minimal careful file store does).
 * - bare read: read and parse the whole array, take what is needed.
 * - bare list: readdir, stat every file, sort by modification time, read and parse the newest 50
 *   (at 10,000 and 100,000 sessions; BENCH_JSONFILE_SESSIONS_100K=0 leaves out the second,
 *   BENCH_JSONFILE_LIST_ONLY=1 runs only the listing).
 *
 * Saves are timed one by one, a bare save and one of ours in turn (so both see the same load on a
 * shared machine); each subject is put back to its prefilled size (untimed) once it has grown by a
 * tenth, so the session size stays what the row says.
 */
import {
  copyFile,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  truncate,
} from 'node:fs/promises';
import { utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assistantMessage,
  jsonFileBackend,
  userMessage,
  type Message,
  type MemoryBackend,
} from '@agent-memory/memory';
import { benchIterations, benchSize, QUICK } from './bench-size';
import { measure, ratio, type BenchResult, type BenchSuite } from './harness';

const RESET_EVERY = 10;
const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 600);
/** Session sizes of the 1 KB save cases (quick mode: the two smallest). */
const FLAT_COUNTS = QUICK ? [100, 1_000] : [100, 1_000, 10_000, 100_000];
/** Session sizes of the tail-read cases: small, then large. */
const TAIL_SIZES = [benchSize(1_000, 100), benchSize(10_000, 1_000)] as const;
/** Sessions in the listing case (a second one at 100,000 unless BENCH_JSONFILE_SESSIONS_100K=0). */
const LISTED = benchSize(10_000, 500);
/** The 100,000-session listing: on in a full run, off in quick mode; the variable decides. */
const LIST_100K = (process.env.BENCH_JSONFILE_SESSIONS_100K ?? (QUICK ? '0' : '1')) !== '0';

const turn: Message[] = [
  userMessage('What changed since yesterday?'),
  assistantMessage('Two tests were fixed.'),
];

/** Short messages (about 100 bytes of JSON each), as in a chat. */
function shortMessages(count: number): Message[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? userMessage(`question ${i}: how do I configure the store?`)
      : assistantMessage(`answer ${i}: pass it in forRoot.`),
  );
}

/** Messages of about 1 KB of JSON each, so that 100,000 of them make a 100 MB session. */
function kilobyteMessages(count: number): Message[] {
  const filler = 'lorem ipsum dolor sit amet '.repeat(35);
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0 ? userMessage(`q${i} ${filler}`) : assistantMessage(`a${i} ${filler}`),
  );
}

/** The bare careful save: whole-array rewrite through a temp file, fsync and rename. */
export async function bareSave(path: string, batch: readonly Message[]): Promise<void> {
  const messages = JSON.parse(await readFile(path, 'utf8')) as Message[];
  messages.push(...batch);
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(JSON.stringify(messages));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

interface SaveSubjects {
  bare: BenchResult;
  ours: BenchResult;
}

/** One subject of a save case: the timed save, and the untimed reset to the prefilled size. */
interface SaveSubject {
  save(): Promise<unknown>;
  reset(): Promise<unknown>;
  iterations: number;
  totalMs: number;
}

/**
 * Save one turn to a session of `messages`, for both subjects, interleaved (a bare save, then
 * ours, and so on) so that both see the same machine load. Each is put back to its prefilled size
 * (untimed) once it has grown by a tenth, at least every {@link RESET_EVERY} saves.
 */
async function saveCase(
  dir: string,
  label: string,
  messages: Message[],
  iterations: { bare: number; ours: number },
): Promise<SaveSubjects> {
  const caseDir = await mkdtemp(join(dir, 'save-'));
  const resetEvery = Math.max(RESET_EVERY, Math.floor(messages.length / 20));

  const barePath = join(caseDir, 'bare.json');
  const bareTemplate = join(caseDir, 'bare.template');
  writeFileSync(bareTemplate, JSON.stringify(messages));
  await copyFile(bareTemplate, barePath);
  const bare: SaveSubject = {
    save: () => bareSave(barePath, turn),
    reset: () => copyFile(bareTemplate, barePath),
    iterations: benchIterations(iterations.bare),
    totalMs: 0,
  };

  const backend = jsonFileBackend({ dir: join(caseDir, 'ours') });
  const store = await backend.open('session');
  await store.save(messages);
  const logPath = join(caseDir, 'ours', 'session.log-1.jsonl');
  const inLogForm = await stat(logPath).then(
    () => true,
    () => false,
  );
  const oursPath = join(caseDir, 'ours', 'session.json');
  const template = join(caseDir, 'ours.template');
  const size = inLogForm ? (await stat(logPath)).size : 0;
  if (!inLogForm) await copyFile(oursPath, template);
  const ours: SaveSubject = {
    save: () => store.save(turn),
    async reset() {
      if (inLogForm) await truncate(logPath, size);
      else await copyFile(template, oursPath);
      await store.retrieve(); // reload the cache, untimed
    },
    iterations: benchIterations(iterations.ours),
    totalMs: 0,
  };

  for (const subject of [bare, ours]) {
    await subject.save(); // warm-up
    await subject.reset();
  }
  for (let i = 0; i < Math.max(bare.iterations, ours.iterations); i++) {
    for (const subject of [bare, ours]) {
      if (i >= subject.iterations) continue;
      if (i > 0 && i % resetEvery === 0) await subject.reset();
      const started = performance.now();
      await subject.save();
      subject.totalMs += performance.now() - started;
    }
  }
  await rm(caseDir, { recursive: true, force: true });
  const result = (subject: SaveSubject, name: string): BenchResult => {
    const meanMs = subject.totalMs / subject.iterations;
    return { case: `save 1 turn @${label}`, subject: name, opsPerSec: 1000 / meanMs, meanMs };
  };
  return {
    bare: result(bare, 'bare file'),
    ours: result(ours, inLogForm ? 'agent-memory (log form)' : 'agent-memory (plain array)'),
  };
}

/** Summary + last 20 of a session of `count` messages (snapshot at count - 20). */
async function tailReadCase(
  dir: string,
  count: number,
): Promise<{ warm: BenchResult; cold: BenchResult; bare: BenchResult }> {
  const label = count.toLocaleString('en-US');
  const caseDir = await mkdtemp(join(dir, 'tail-'));
  const messages = shortMessages(count);
  const backendDir = join(caseDir, 'ours');
  const backend = jsonFileBackend({ dir: backendDir });
  const store = await backend.open('session');
  await store.save(messages);
  await store.saveSnapshot({ summary: 'what came before' }, count - 20, null);
  const barePath = join(caseDir, 'bare.json');
  writeFileSync(barePath, JSON.stringify(messages));
  const bare = await measure(
    `summary + last 20 @${label}`,
    'bare file (whole array)',
    async () => (JSON.parse(await readFile(barePath, 'utf8')) as Message[]).slice(-20),
    { timeMs: TIME_MS },
  );
  const warm = await measure(
    `summary + last 20 @${label}`,
    'agent-memory, open per request (cached)',
    async () => (await backend.open('session')).retrieve(),
    { timeMs: TIME_MS },
  );
  const cold = await measure(
    `summary + last 20 @${label}`,
    'agent-memory, new backend per read (cold)',
    async () => (await jsonFileBackend({ dir: backendDir }).open('session')).retrieve(),
    { timeMs: TIME_MS },
  );
  await rm(caseDir, { recursive: true, force: true });
  return { warm, cold, bare };
}

/** The bare listing: stat every file, sort by mtime, read and parse the newest 50. */
async function bareList(dir: string): Promise<unknown[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  const stats = await Promise.all(
    names.map(async (name) => ({ name, mtimeMs: (await stat(join(dir, name))).mtimeMs })),
  );
  stats.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1));
  return Promise.all(
    stats.slice(0, 50).map(async (s) => JSON.parse(await readFile(join(dir, s.name), 'utf8'))),
  );
}

async function listCase(
  dir: string,
  sessions: number,
): Promise<{ bare: BenchResult; ours: BenchResult; first: BenchResult }> {
  const label = sessions.toLocaleString('en-US');
  const listDir = join(dir, `list-${sessions}`);
  await mkdir(listDir, { recursive: true });
  const body = JSON.stringify(shortMessages(20));
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let i = 0; i < sessions; i++) {
    const path = join(listDir, `session-${i}.json`);
    writeFileSync(path, body);
    const at = new Date(base + i * 1_000);
    utimesSync(path, at, at);
  }
  // Up to a thousand in log form (metadata), as sessions with a title or a snapshot are.
  const backend: MemoryBackend = jsonFileBackend({
    dir: listDir,
    now: () => new Date(base + sessions * 1_000),
  });
  for (let i = 0; i < sessions; i += Math.max(10, sessions / 1_000)) {
    await (await backend.open(`session-${i}`)).setMeta('title', `session ${i}`);
  }
  // A few timed runs each, in turn (one list is a walk over every file: seconds at 100,000).
  const iterations = benchIterations(sessions >= 100_000 ? 3 : 8);
  // A backend lists from its in-memory index (refreshed from the folder's `_index` each time);
  // a fresh one (a new process) first walks the folder as the bare listing does.
  const lister = jsonFileBackend({ dir: listDir });
  const subjects = [
    { name: 'bare stat walk', run: () => bareList(listDir), totalMs: 0 },
    { name: 'agent-memory list', run: () => lister.list({ limit: 50 }), totalMs: 0 },
    {
      name: 'agent-memory list, first in a process',
      run: () => jsonFileBackend({ dir: listDir }).list({ limit: 50 }),
      totalMs: 0,
    },
  ];
  for (const subject of subjects) await subject.run(); // warm-up
  for (let i = 0; i < iterations; i++) {
    for (const subject of subjects) {
      const started = performance.now();
      await subject.run();
      subject.totalMs += performance.now() - started;
    }
  }
  const [bare, ours, first] = subjects.map((subject): BenchResult => {
    const meanMs = subject.totalMs / iterations;
    return {
      case: `newest 50 of ${label} sessions`,
      subject: subject.name,
      opsPerSec: 1000 / meanMs,
      meanMs,
    };
  }) as [BenchResult, BenchResult, BenchResult];
  await rm(listDir, { recursive: true, force: true });
  return { bare, ours, first };
}

/** The save and read cases (left out with BENCH_JSONFILE_LIST_ONLY=1). */
async function saveAndReadCases(
  dir: string,
  results: BenchResult[],
  notes: string[],
): Promise<void> {
  const plain = await saveCase(dir, '100 short', shortMessages(100), { bare: 300, ours: 300 });
  results.push(plain.bare, plain.ours);
  notes.push(
    `save to a plain-array session (100 short messages, under plainMaxBytes): ` +
      `${ratio(plain.ours.meanMs, plain.bare.meanMs)} bare (it also fsyncs the folder)`,
  );
  const at200 = await saveCase(dir, '200 short', shortMessages(200), { bare: 400, ours: 400 });
  results.push(at200.bare, at200.ours);
  notes.push(
    `save at 200 messages: ${ratio(at200.ours.meanMs, at200.bare.meanMs)} bare (target ≤ 1.20×)`,
  );

  const flat: SaveSubjects[] = [];
  const bareIterationsAt: Record<number, number> = { 100: 100, 1_000: 60, 10_000: 20, 100_000: 3 };
  for (const count of FLAT_COUNTS) {
    const bareIterations = bareIterationsAt[count]!;
    const label = `${count.toLocaleString('en-US')} × 1 KB`;
    const row = await saveCase(dir, label, kilobyteMessages(count), {
      bare: bareIterations,
      ours: 100,
    });
    flat.push(row);
    results.push(row.bare, row.ours);
  }
  notes.push(
    `save, 1 KB messages: ours ${flat.map((r) => r.ours.meanMs.toFixed(2)).join(' / ')} ms ` +
      `at ${FLAT_COUNTS.map((count) => `${count / 1000}k`).join(' / ')} messages (100k = a 100 MB session; target < 20 ms, flat); ` +
      `bare ${flat.map((r) => r.bare.meanMs.toFixed(1)).join(' / ')} ms`,
  );

  const small = await tailReadCase(dir, TAIL_SIZES[0]);
  const large = await tailReadCase(dir, TAIL_SIZES[1]);
  results.push(small.bare, small.warm, small.cold, large.bare, large.warm, large.cold);
  notes.push(
    `summary + last 20, ${TAIL_SIZES[1] / 1000}k vs ${TAIL_SIZES[0] / 1000}k messages: ${ratio(large.cold.meanMs, small.cold.meanMs)} cold, ` +
      `${ratio(large.warm.meanMs, small.warm.meanMs)} cached (target ≤ 2×); bare ${ratio(large.bare.meanMs, small.bare.meanMs)}`,
  );
}

export const suite: BenchSuite = {
  name: 'JSON-file store against a bare file',
  async run() {
    const dir = await mkdtemp(join(tmpdir(), 'agent-memory-bench-jsonfile-'));
    const results: BenchResult[] = [];
    const notes: string[] = [];
    try {
      if (process.env.BENCH_JSONFILE_LIST_ONLY !== '1') await saveAndReadCases(dir, results, notes);
      const list = await listCase(dir, LISTED);
      results.push(list.bare, list.ours, list.first);
      notes.push(
        `newest 50 of ${LISTED.toLocaleString('en-US')} sessions: ${ratio(list.ours.meanMs, list.bare.meanMs)} the bare stat walk ` +
          `(target ≤ 1×); the first list in a process walks the folder: ${ratio(list.first.meanMs, list.bare.meanMs)}`,
      );
      if (LIST_100K) {
        const huge = await listCase(dir, 100_000);
        results.push(huge.bare, huge.ours, huge.first);
        notes.push(
          `newest 50 of 100,000 sessions: ${ratio(huge.ours.meanMs, huge.bare.meanMs)} the bare stat walk; ` +
            `${ratio(huge.ours.meanMs, list.ours.meanMs)} the time at 10,000 (one pass over the in-memory ` +
            `index, the page's sessions read)`,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return { results, notes };
  },
};
