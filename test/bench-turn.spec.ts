/**
 * `npm run bench turn`, briefly (a few turns, one round), as a user runs it (tinybench is an ES
 * module jest cannot load, so the suite runs in a process of its own): every subject runs on
 * every storage and the table and notes are printed. The figures are in docs/benchmarks.md.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..');
/** Per storage: the store's subjects, then the application's (with compaction checks). */
const STORE_SUBJECTS = ['open + keyed save (what runTurn saves)', 'store.save'];
const APP_SUBJECTS = [
  'MemoryService.runTurn (retrieve + turn + keyed save)',
  'admin API append, Idempotency-Key',
];

describe('the turn benchmark', () => {
  it('measures every subject on PostgreSQL, NATS and JSON files against the bare write', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', '@swc-node/register', join('bench', 'run.ts'), 'turn'],
      {
        cwd: ROOT,
        env: { ...process.env, BENCH_TURNS: '4', BENCH_TURN_ROUNDS: '1' },
        timeout: 110_000,
      },
    );
    const rows = stdout
      .split('\n')
      .filter((line) => /^\| (PostgreSQL|NATS|JSON files)[ ,]/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    // | case | subject | ops/s | mean ms | p50 ms |
    expect(rows.map((cells) => `${cells[1]}: ${cells[2]}`)).toEqual(
      ['PostgreSQL', 'NATS', 'JSON files'].flatMap((storage) => [
        ...STORE_SUBJECTS.map((subject) => `${storage}: ${subject}`),
        expect.stringMatching(new RegExp(`^${storage}: bare `)),
        ...APP_SUBJECTS.map((subject) => `${storage}, with compaction: ${subject}`),
        expect.stringMatching(new RegExp(`^${storage}, with compaction: bare `)),
      ]),
    );
    for (const cells of rows) {
      expect(Number(cells[4])).toBeGreaterThan(0);
      expect(Number(cells[5])).toBeGreaterThan(0);
    }
    expect(stdout).toMatch(/PostgreSQL target for the runTurn-style save .*p50 ≤ 1\.15×/);
  }, 120_000);
});
