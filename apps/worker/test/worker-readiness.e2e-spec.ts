/**
 * The worker on a PostgreSQL table nobody migrated (`MEMORY_PG_ENSURE_SCHEMA=false`): it says what
 * is missing and writes no heartbeat, so its startup probe keeps it out; once the table is
 * migrated its next beat writes the heartbeat.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBackend } from '@agent-memory/memory/postgres';
import {
  killWorkers,
  startWorker,
  workerEnv,
  type WorkerProcess,
} from '@agent-memory/test-support/compaction-workers';
import { TestSchemas } from '@agent-memory/test-support/postgres';

/** Resolves once the worker printed `text`; fails after `timeoutMs`. */
async function waitForOutput(worker: WorkerProcess, text: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!worker.output.join('').includes(text)) {
    if (Date.now() > deadline) {
      throw new Error(`the worker did not print "${text}":\n${worker.output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the worker on an unmigrated PostgreSQL table', () => {
  const schemas = new TestSchemas('worker_ready');
  const workers: WorkerProcess[] = [];
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'worker-ready-'));
  });
  afterAll(async () => {
    killWorkers(workers);
    await schemas.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names what is missing and beats only once the table is migrated', async () => {
    const table = schemas.nextTable();
    const heartbeat = join(dir, 'heartbeat');
    const worker = await startWorker({
      ...workerEnv({ dir, subject: `ready.${process.pid}`, queue: `ready-${process.pid}` }),
      MEMORY_BACKEND: 'postgres',
      DATABASE_URL: schemas.url,
      MEMORY_PG_TABLE: table,
      MEMORY_PG_ENSURE_SCHEMA: 'false',
      WORKER_HEARTBEAT_FILE: heartbeat,
    });
    workers.push(worker);
    await waitForOutput(worker, 'the postgres memory backend is not ready');
    expect(worker.output.join('')).toContain('procedure conversation_memory_save_group');
    expect(existsSync(heartbeat)).toBe(false);

    await (await postgresBackend({ url: schemas.url, table })).close();
    await waitForOutput(worker, 'the postgres memory backend is ready again');
    for (let i = 0; i < 50 && !existsSync(heartbeat); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(existsSync(heartbeat)).toBe(true);
  }, 90_000);
});
