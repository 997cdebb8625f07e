/**
 * One store process of a cross-process test: `store-process.script.ts <role> <store JSON> <session>
 * …args`. The roles are in `store-process.ts`; the store JSON is a `BackendSpec` of the conformance
 * harness, opened through the store's driver with its `openBackend`. It opens the store, prints `ready`, waits for `go` on
 * stdin, does its part and prints one JSON line with its result.
 */
import { ConcurrentUpdateError, MemoryError, type SnapshotStore } from '@agent-memory/memory';
import { postgresDriver } from '@agent-memory/memory/postgres';
import { openBackend, type BackendSpec } from '@agent-memory/test-conformance';
import { playStoreRole, turnOf } from '../../libs/conformance/src/processes/store-roles';
import { readyAndWaitForGo } from './child-script';
import { settingsFrom } from './isolated-stores';
import type { StoreProcessRole, TurnWriterResult } from './store-process';

async function writeOnce(
  memory: SnapshotStore,
  writer: string,
  turns: number,
  keyed: boolean,
): Promise<TurnWriterResult> {
  const result: TurnWriterResult = {
    writer,
    acknowledged: [],
    refused: 0,
    failed: 0,
    errors: [],
    failureCodes: [],
    slowestMs: 0,
  };
  for (let i = 0; i < turns; i++) {
    const started = performance.now();
    try {
      // One key per turn, as MemoryService.runTurn saves a turn.
      await memory.save(turnOf(writer, i), keyed ? { idempotencyKey: `w${writer}-t${i}` } : {});
      result.acknowledged.push(i);
    } catch (error) {
      if (error instanceof ConcurrentUpdateError) result.refused++;
      else result.failed++;
      result.failureCodes.push(error instanceof MemoryError ? error.code : String(error));
      if (result.errors.length < 5) result.errors.push((error as Error).message);
    }
    result.slowestMs = Math.max(result.slowestMs, Math.round(performance.now() - started));
  }
  return result;
}

/** Runs the memory migrations of the PostgreSQL table `spec`'s variables name. */
async function migrate(spec: BackendSpec): Promise<{ applied: boolean }> {
  const { url, table } = settingsFrom(postgresDriver, spec.env);
  const { DataSource } = await import('typeorm');
  const { ensureMemorySchema, memoryMigrationsApplied } =
    await import('@agent-memory/memory/postgres');
  const dataSource = await new DataSource({ type: 'postgres', url, poolSize: 1 }).initialize();
  try {
    await readyAndWaitForGo();
    await ensureMemorySchema(dataSource, table ?? undefined);
    return { applied: await memoryMigrationsApplied(dataSource, table ?? undefined) };
  } finally {
    await dataSource.destroy();
  }
}

async function main(): Promise<unknown> {
  const [role, storeJson, session, ...args] = process.argv.slice(2) as [
    StoreProcessRole,
    string,
    string,
    ...string[],
  ];
  const spec = JSON.parse(storeJson) as BackendSpec;
  if (role === 'migrate') return migrate(spec);
  // The conformance harness's factory, with the spec's child options: many of these run at once.
  const backend = await openBackend(spec, { childProcess: true });
  try {
    const memory = await backend.open(session);
    await memory.loadSnapshot();
    await readyAndWaitForGo();
    if (role === 'turn-writer') {
      return await writeOnce(memory, args[0]!, Number(args[1]), args[2] === 'keyed');
    }
    return await playStoreRole(memory, role, args);
  } finally {
    await backend.close();
  }
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
