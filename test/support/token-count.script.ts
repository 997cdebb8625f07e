/**
 * Counts a text of a kind of `PATHOLOGICAL_TEXTS`, of the given size in UTF-8 bytes (by default
 * 4 MB, the admin API's body limit), with `TokenCounter.countAsync` in a process of its own, so that what it measures is the count alone (a test runner's own heap and
 * garbage collection stay out): the CPU time it took, the longest event-loop delay meanwhile, and
 * the longest the count held the loop in CPU time (`EventLoopHold`, the server's own measure, with
 * a 1 ms ticker). Unlike the wall-clock delay, it does not grow when the machine is busy and the
 * process waits for a CPU. Prints `ready`, waits for `go`, prints a `TokenCountResult`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TokenCounter, userMessage } from '@agent-memory/memory';
import { EventLoopHold, processCpuMs } from '../../apps/api/src/metrics/event-loop-hold';
import { readyAndWaitForGo } from './child-script';
import { PATHOLOGICAL_TEXTS } from './random-text';

export interface TokenCountResult {
  tokens: number;
  /** UTF-8 bytes of the text counted. */
  bytes: number;
  cpuMs: number;
  /** Longest event-loop delay (wall clock), waits for a CPU included. */
  maxDelayMs: number;
  /** Longest CPU time spent between two turns of the event loop. */
  maxHoldCpuMs: number;
}

async function main(kind: string, bytes: number): Promise<void> {
  const make = PATHOLOGICAL_TEXTS[kind];
  if (!make) throw new Error(`unknown text kind "${kind}"`);
  const text = make(bytes);
  const counter = new TokenCounter(); // loading the encoding is not part of counting
  await readyAndWaitForGo();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const hold = new EventLoopHold(1);
  hold.start();
  const started = processCpuMs();
  const tokens = await counter.countAsync([userMessage(text)]);
  const cpuMs = processCpuMs() - started;
  const maxHoldCpuMs = hold.takeMaxMs();
  hold.stop();
  delay.disable();
  const result: TokenCountResult = {
    tokens,
    bytes: Buffer.byteLength(text),
    cpuMs,
    maxDelayMs: delay.max / 1e6,
    maxHoldCpuMs,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main(process.argv[2] ?? '', Number(process.argv[3] ?? 4 * 1024 * 1024)).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
