/**
 * The worker's Prometheus metrics on `METRICS_PORT`: the admin server's metric names (compactions,
 * backend operations, the process), served without a token, counting the checks it answered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestingModule } from '@nestjs/testing';
import { CompactionService, MemoryService } from '@agent-memory/memory';
import {
  compactionPublisher,
  killWorkers,
  longTurns,
  startWorker,
  workerEnv,
  type WorkerProcess,
} from '@agent-memory/test-support/compaction-workers';

describe('the worker on METRICS_PORT', () => {
  jest.setTimeout(60_000);
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  const subject = `test.metrics.${tag}`;
  let dir: string;
  let worker: WorkerProcess;
  let moduleRef: TestingModule;
  let metricsUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'worker-metrics-'));
    worker = await startWorker({
      ...workerEnv({ dir, subject, queue: `test-metrics-${tag}` }),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
    });
    // A free port was asked for: the worker prints the one it got, before it says it is ready.
    const printed = /metrics on 127\.0\.0\.1:(\d+)\/metrics/.exec(worker.output.join(''));
    expect(printed).not.toBeNull();
    metricsUrl = `http://127.0.0.1:${printed![1]}`;
    moduleRef = await compactionPublisher({ dir, subject }, { requestTimeoutMs: 15_000 });
    await moduleRef.init();
  });

  afterAll(async () => {
    await moduleRef?.close();
    killWorkers(worker ? [worker] : []);
    rmSync(dir, { recursive: true, force: true });
  });

  const scrape = async () => {
    const response = await fetch(`${metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    return response.text();
  };

  it('serves the process metrics without a token, and nothing else on that port', async () => {
    const text = await scrape();
    expect(text).toMatch(/^agent_memory_process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^agent_memory_eventloop_hold_max_seconds \d/m);
    expect(text).toContain('# TYPE agent_memory_compactions_total counter');
    expect(text).not.toMatch(/^agent_memory_compactions_total\{/m);
    expect((await fetch(`${metricsUrl}/health`)).status).toBe(404);
  });

  it('counts the compactions it ran and the backend calls they made', async () => {
    const memory = moduleRef.get(MemoryService);
    await (await memory.session('metered')).save(longTurns(12));
    const result = await moduleRef.get(CompactionService).compact('metered');
    expect(result.compacted).toBe(true);

    const text = await scrape();
    expect(text).toMatch(/^agent_memory_compactions_total\{outcome="compacted"\} 1$/m);
    const saved = /^agent_memory_compaction_tokens_saved_total (\d+)/m.exec(text);
    expect(Number(saved?.[1])).toBe(result.tokensBefore - result.tokensAfter);
    expect(text).toMatch(
      /^agent_memory_operations_total\{backend="jsonfile",operation="saveSnapshot",outcome="ok"\} 1$/m,
    );
  });
});
