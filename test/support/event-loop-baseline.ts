/**
 * A bare Node process that only measures its own event loop delay (`monitorEventLoopDelay`), run
 * side by side with a server under test: on a shared, oversubscribed machine every process waits
 * for a CPU now and then, and the baseline shows how much of a server's delay is that wait rather
 * than the server blocking its loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const SCRIPT = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
let histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
process.stdin.on('data', () => {
  process.stdout.write(JSON.stringify({ maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 }) + '\\n');
  histogram.reset();
});
`;

export interface DelaySample {
  maxMs: number;
  p99Ms: number;
}

export interface EventLoopBaseline {
  /** The delay since the previous sample (the histogram is reset). */
  sample(): Promise<DelaySample>;
  stop(): void;
}

export async function startEventLoopBaseline(): Promise<EventLoopBaseline> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let buffered = '';
  let waiting: ((line: string) => void) | null = null;
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const end = buffered.indexOf('\n');
    if (end >= 0 && waiting) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const resolve = waiting;
      waiting = null;
      resolve(line);
    }
  });
  const baseline: EventLoopBaseline = {
    sample: () =>
      new Promise<DelaySample>((resolve) => {
        waiting = (line) => resolve(JSON.parse(line) as DelaySample);
        child.stdin!.write('sample\n');
      }),
    stop: () => void child.kill('SIGKILL'),
  };
  await baseline.sample();
  return baseline;
}
