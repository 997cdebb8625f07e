/**
 * The benchmark harness: tinybench measures, this file only names the results and prints them.
 * Each `*.bench.ts` exports a `BenchSuite`; `bench/run.ts` runs them and prints one table each.
 */
import { Bench } from 'tinybench';
import { benchIterations, QUICK, QUICK_ITERATIONS, QUICK_TIME_MS } from './bench-size';

export interface BenchResult {
  /** What was measured, such as `retrieve 10k + snapshot`. */
  case: string;
  /** Whose code ran: `agent-memory`, `bare pg`, `LangChain`. */
  subject: string;
  opsPerSec: number;
  /** Mean time of one operation, in milliseconds. */
  meanMs: number;
  /** Median time of one operation, in milliseconds, where the case measured one. */
  p50Ms?: number;
}

export interface BenchSuite {
  name: string;
  /** Results, and lines printed under the table: ratios, targets and whether they were met. */
  run(): Promise<{ results: BenchResult[]; notes: string[] }>;
}

export interface MeasureOptions {
  /**
   * How long to sample each case, in milliseconds. Default 1000; BENCH_TIME_MS overrides, and
   * quick mode (`bench-size.ts`) samples a few iterations only.
   */
  timeMs?: number;
  warmupTimeMs?: number;
  /**
   * Run exactly this many timed iterations instead of sampling for `timeMs` (BENCH_TIME_MS does
   * not apply), after `warmupIterations` (default 16) untimed ones.
   */
  iterations?: number;
  warmupIterations?: number;
}

/** Measures `fn` with tinybench and returns its throughput. */
export async function measure(
  caseName: string,
  subject: string,
  fn: () => Promise<unknown> | unknown,
  opts: MeasureOptions = {},
): Promise<BenchResult> {
  const time =
    opts.iterations === undefined
      ? Number(process.env.BENCH_TIME_MS ?? (QUICK ? QUICK_TIME_MS : (opts.timeMs ?? 1000)))
      : 0;
  const bench = new Bench(
    opts.iterations === undefined
      ? {
          time,
          warmupTime: QUICK ? 0 : (opts.warmupTimeMs ?? Math.min(250, time / 4)),
          // Quick mode: a few samples, not tinybench's 64 (16 for warm-up) at the least.
          ...(QUICK ? { iterations: QUICK_ITERATIONS, warmupIterations: 1 } : {}),
        }
      : {
          time: 0,
          iterations: benchIterations(opts.iterations),
          warmupTime: 0,
          warmupIterations: QUICK ? 1 : (opts.warmupIterations ?? 16),
        },
  );
  // An async function: tinybench calls any other kind once, unawaited, to see whether it returns a
  // promise, which would overlap that call with the first timed one.
  bench.add(caseName, async () => fn());
  await bench.run();
  const result = bench.tasks[0]!.result;
  if (!result || result.error || result.aborted) {
    throw new Error(`benchmark "${caseName}" (${subject}) failed`, { cause: result?.error });
  }
  return {
    case: caseName,
    subject,
    opsPerSec: result.throughput.mean,
    meanMs: result.latency.mean,
    p50Ms: result.latency.p50,
  };
}

/** One subject of {@link measureInterleaved}: its name and the operation, given its iteration. */
export interface InterleavedSubject {
  subject: string;
  run(iteration: number): Promise<unknown>;
}

/**
 * Runs `iterations` of every subject taking turns operation by operation (subject 1, 2, …, then
 * 1 again), after `warmup` untimed turns, and returns each one's mean and p50: every subject sees
 * the same moments of a shared machine's load, which sampling one subject after another does not.
 */
export async function measureInterleaved(
  caseName: string,
  subjects: readonly InterleavedSubject[],
  iterations: number,
  warmup = 10,
): Promise<BenchResult[]> {
  const samples = subjects.map(() => [] as number[]);
  if (QUICK) warmup = Math.min(warmup, 1);
  for (let i = 0; i < warmup + iterations; i++) {
    for (const [n, { run }] of subjects.entries()) {
      const started = performance.now();
      await run(i);
      if (i >= warmup) samples[n]!.push(performance.now() - started);
    }
  }
  return subjects.map(({ subject }, n) => {
    const sorted = samples[n]!.sort((a, b) => a - b);
    const meanMs = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
    const p50Ms = sorted[Math.floor(sorted.length / 2)]!;
    return { case: caseName, subject, opsPerSec: 1000 / meanMs, meanMs, p50Ms };
  });
}

/** `a` over `b` as text such as `3.25×`. */
export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

/** Prints one suite as a markdown table (ready to paste into the README), then its notes. */
export function printSuite(name: string, results: BenchResult[], notes: string[]): void {
  const withP50 = results.some((r) => r.p50Ms !== undefined);
  const columns = ['case', 'subject', 'ops/s', 'mean ms', ...(withP50 ? ['p50 ms'] : [])];
  const rows = results.map((r) => [
    r.case,
    r.subject,
    r.opsPerSec >= 100 ? Math.round(r.opsPerSec).toLocaleString('en-US') : r.opsPerSec.toFixed(2),
    r.meanMs.toFixed(3),
    ...(withP50 ? [r.p50Ms === undefined ? '' : r.p50Ms.toFixed(3)] : []),
  ]);
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n## ${name}\n`);
  console.log(line(columns));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  if (notes.length) console.log('');
  for (const note of notes) console.log(`- ${note}`);
}

/**
 * Times `run` on a fresh subject from `setup` each iteration (for work that changes what it runs
 * on, such as compaction), counting only `run`. Returns the mean throughput. Quick mode runs at
 * most a few iterations.
 */
export async function measureEach<T>(
  caseName: string,
  subject: string,
  setup: () => Promise<T>,
  run: (prepared: T) => Promise<unknown>,
  iterations: number,
): Promise<BenchResult> {
  let totalMs = 0;
  iterations = benchIterations(iterations);
  for (let i = 0; i < iterations; i++) {
    const prepared = await setup();
    const started = performance.now();
    await run(prepared);
    totalMs += performance.now() - started;
  }
  const meanMs = totalMs / iterations;
  return { case: caseName, subject, opsPerSec: 1000 / meanMs, meanMs };
}
