/**
 * Counts one megabyte text (a kind of `MEGABYTE_TEXTS`) with `TokenCounter.countAsync` in a
 * process of its own, so that what it measures is the count alone: the CPU time it took and the
 * longest event-loop delay meanwhile (a test runner's own heap and garbage collection stay out).
 * Prints `ready`, waits for `go`, prints `{ tokens, cpuMs, maxDelayMs }`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TokenCounter, userMessage } from '@agent-memory/memory';
import { readyAndWaitForGo } from './child-script';
import { MEGABYTE_TEXTS } from './random-text';

export interface TokenCountResult {
  tokens: number;
  cpuMs: number;
  maxDelayMs: number;
}

async function main(kind: string): Promise<void> {
  const make = MEGABYTE_TEXTS[kind];
  if (!make) throw new Error(`unknown text kind "${kind}"`);
  const text = make();
  const counter = new TokenCounter(); // loading the encoding is not part of counting
  await readyAndWaitForGo();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = process.cpuUsage();
  const tokens = await counter.countAsync([userMessage(text)]);
  const used = process.cpuUsage(started);
  delay.disable();
  const result: TokenCountResult = {
    tokens,
    cpuMs: (used.user + used.system) / 1000,
    maxDelayMs: delay.max / 1e6,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main(process.argv[2] ?? '').catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
