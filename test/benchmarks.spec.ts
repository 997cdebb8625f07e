/**
 * Every benchmark suite in bench/ still runs: each one, found by listing the folder, runs briefly
 * (`BENCH_QUICK=1`: small data, a few samples) as `npm run bench <name>` runs it, in a process of
 * its own (tinybench is an ES module jest cannot load), one after the other. Each must exit 0 and
 * print its markdown table: the header, the subjects it compares, and positive figures in every
 * row. The figures themselves are in docs/benchmarks.md; quick-mode ones mean nothing.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testDatabaseUrl, testNatsUrl } from './support/services';

const ROOT = join(__dirname, '..');
const BENCH = join(ROOT, 'bench');

/** Every suite: `turn` for `bench/turn.bench.ts`. */
const SUITES = readdirSync(BENCH)
  .filter((file) => file.endsWith('.bench.ts'))
  .map((file) => file.slice(0, -'.bench.ts'.length))
  .sort();

/** The subjects each suite's table must show (a row at least for each). */
const SUBJECTS: Record<string, (string | RegExp)[]> = {
  compaction: ['TokenCounter (o200k)', 'bare tiktoken', 'SimpleMemory', 'SummaryCompactor'],
  dashboard: ['dashboard in chromium', 'bare fetch'],
  jsonfile: [
    'bare file',
    'agent-memory (plain array)',
    'agent-memory (log form)',
    'bare file (whole array)',
    'agent-memory, open per request (cached)',
    'agent-memory, new backend per read (cold)',
    'bare stat walk',
    'agent-memory list',
    'agent-memory list, first in a process',
  ],
  'jsonfile-listing': ['agent-memory'],
  langgraph: ['MemoryCheckpointSaver', 'PostgresSaver'],
  mcp: [
    'store + token count (bare)',
    'store.save (bare)',
    'MCP in process',
    'MCP stdio',
    'MCP HTTP /mcp',
  ],
  nats: [
    'agent-memory',
    'bare KV get+update',
    'bare KV get+update retry loop',
    'bare headers-only walk of the keys',
    'reading every session (the list before)',
  ],
  postgres: [
    'agent-memory',
    'previous release (row lock, no triggers)',
    'bare pg',
    'bare pg + session row',
    'LangChain',
    /^agent-memory \(\d+ split\)$/,
    /^previous release \(\d+ split\)$/,
    /^bare multi-row INSERT \(\d+ split\)$/,
    'agent-memory entries()',
    'agent-memory list()',
    'bare pg (indexed)',
  ],
  rag: [
    'in-memory exact',
    'pgvector HNSW',
    'UniversalSentenceEmbedder',
    'no query (bare)',
    'with recall',
  ],
  stores: ['SimpleMemory'],
  turn: [
    'open + keyed save (what runTurn saves)',
    'store.save',
    'MemoryService.runTurn (retrieve + turn + keyed save)',
    'admin API append, Idempotency-Key',
  ],
};

/** Per storage of the turn suite: the store's subjects, then the application's. */
const TURN_STORE_SUBJECTS = ['open + keyed save (what runTurn saves)', 'store.save'];
const TURN_APP_SUBJECTS = [
  'MemoryService.runTurn (retrieve + turn + keyed save)',
  'admin API append, Idempotency-Key',
];

/** How long one suite may take in quick mode (the dashboard's seeding and Chromium are the most). */
const SUITE_TIMEOUT_MS = 150_000;

/** The environment of a quick run: no BENCH_* of the caller's, the test services. */
function quickEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('BENCH_')),
  );
  return {
    ...env,
    BENCH_QUICK: '1',
    TEST_DATABASE_URL: testDatabaseUrl(),
    TEST_NATS_URL: testNatsUrl(),
  };
}

/** Runs one suite as `npm run bench` does; its output, or an error with the end of its stderr. */
async function runSuite(name: string): Promise<string> {
  try {
    // The file name, not the bare name: `run.ts jsonfile` would also run `jsonfile-listing`.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', '@swc-node/register', join('bench', 'run.ts'), `${name}.bench.ts`],
      { cwd: ROOT, env: quickEnv(), timeout: SUITE_TIMEOUT_MS, maxBuffer: 16 << 20 },
    );
    return stdout;
  } catch (error) {
    const { code, signal, stderr } = error as { code?: number; signal?: string; stderr?: string };
    throw new Error(
      `npm run bench ${name} failed (exit ${code ?? signal}):\n${(stderr ?? '').slice(-4000)}`,
    );
  }
}

/** The table's rows, cells trimmed: `| case | subject | ops/s | mean ms | p50 ms |`. */
function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| case '))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** A printed figure such as `1,234` or `0.123` as a number. */
const figure = (cell: string) => Number(cell.replaceAll(',', ''));

/** Whether a cell holds a positive, finite figure. */
const positive = (cell: string | undefined) =>
  cell !== undefined && figure(cell) > 0 && Number.isFinite(figure(cell));

describe('the benchmarks, in quick mode', () => {
  it('finds every suite in bench/ and knows what each compares', () => {
    expect(SUITES).toEqual(expect.arrayContaining(['turn', 'dashboard', 'postgres']));
    // A new suite needs its subjects here, so that its table is checked as the others are.
    expect(SUITES.filter((name) => !(name in SUBJECTS))).toEqual([]);
  });

  it.each(SUITES)(
    '%s runs, exits 0 and prints its table',
    async (name) => {
      const stdout = await runSuite(name);
      expect(stdout).toMatch(/^## .+$/m);
      expect(stdout).toMatch(/^\| case +\| subject +\| ops\/s +\| mean ms +(\| p50 ms +)?\|$/m);
      const rows = tableRows(stdout);
      expect(rows.length).toBeGreaterThan(0);
      // Every row names its case and subject and has a positive, finite throughput and mean time.
      const bad = rows.filter(
        ([caseName, subject, opsPerSec, meanMs]) =>
          !caseName || !subject || !positive(opsPerSec) || !positive(meanMs),
      );
      expect(bad).toEqual([]);
      const subjects = rows.map((cells) => cells[1]!);
      const missing = (SUBJECTS[name] ?? []).filter(
        (expected) => !subjects.some((subject) => matches(expected, subject)),
      );
      expect(missing).toEqual([]);
      if (name === 'turn') checkTurnRows(stdout, rows);
    },
    SUITE_TIMEOUT_MS + 10_000,
  );
});

/** Whether `subject` is the one `expected` names (or matches its pattern). */
function matches(expected: string | RegExp, subject: string): boolean {
  return typeof expected === 'string' ? subject === expected : expected.test(subject);
}

/**
 * The turn suite, row by row: every subject on PostgreSQL, NATS and JSON files, each against
 * its bare write, with a p50, and the PostgreSQL target line.
 */
function checkTurnRows(stdout: string, rows: string[][]): void {
  expect(rows.map(([storage, subject]) => `${storage}: ${subject}`)).toEqual(
    ['PostgreSQL', 'NATS', 'JSON files'].flatMap((storage) => [
      ...TURN_STORE_SUBJECTS.map((subject) => `${storage}: ${subject}`),
      expect.stringMatching(new RegExp(`^${storage}: bare `)),
      ...TURN_APP_SUBJECTS.map((subject) => `${storage}, with compaction: ${subject}`),
      expect.stringMatching(new RegExp(`^${storage}, with compaction: bare `)),
    ]),
  );
  for (const cells of rows) expect(figure(cells[4]!)).toBeGreaterThan(0);
  expect(stdout).toMatch(/PostgreSQL target for the runTurn-style save .*p50 ≤ 1\.15×/);
}
