/**
 * One store process of a cross-process test: `store-process.script <module JSON> <role>
 * <storage JSON> <session> …args` (see `store-process.ts`). It opens the storage with the
 * `openStorage` of the store's process module, prints `ready`, waits for `go` on stdin, does its
 * part and prints one JSON line with its result.
 */
import {
  ConcurrentUpdateError,
  ExtractiveSummarizer,
  MemoryError,
  SummaryCompactor,
  assistantMessage,
  userMessage,
  type SnapshotStore,
} from '@agent-memory/memory';
import type { MemoryBackendInitializer, ProcessModule } from '../initializer';
import { exportOf, loadModule } from '../module-loader';
import { readyAndWaitForGo } from '../support/child-script';
import type { RacerResult, StoreProcessRole, WriterResult } from './store-process';

async function write(memory: SnapshotStore, writer: string, turns: number): Promise<WriterResult> {
  let retries = 0;
  for (let i = 0; i < turns; i++) {
    const turn = [userMessage(`w${writer}-q${i}`), assistantMessage(`w${writer}-a${i}`)];
    for (;;) {
      try {
        await memory.save(turn);
        break;
      } catch (error) {
        if (!(error instanceof ConcurrentUpdateError)) throw error;
        retries++;
      }
    }
  }
  return { writer, retries };
}

async function race(memory: SnapshotStore, upTo: number, summary: string): Promise<RacerResult> {
  try {
    await memory.saveSnapshot({ summary }, upTo, null);
    return { outcome: 'won' };
  } catch (error) {
    if (!(error instanceof MemoryError)) throw error;
    return { outcome: 'lost', code: error.code };
  }
}

async function main(): Promise<unknown> {
  const [moduleJson, role, storageJson, session, ...args] = process.argv.slice(2) as [
    string,
    StoreProcessRole,
    string,
    string,
    ...string[],
  ];
  const module = JSON.parse(moduleJson) as ProcessModule;
  const exported = exportOf(await loadModule(module.path), module.exportName) as
    Partial<MemoryBackendInitializer> | undefined;
  if (typeof exported?.openStorage !== 'function') {
    throw new Error(
      `${module.path}: export "${module.exportName ?? 'default'}" has no openStorage function`,
    );
  }
  const backend = await exported.openStorage(JSON.parse(storageJson), { childProcess: true });
  try {
    const memory = await backend.open(session);
    await memory.loadSnapshot();
    await readyAndWaitForGo();
    switch (role) {
      case 'writer':
        return await write(memory, args[0]!, Number(args[1]));
      case 'snapshot-racer':
        return await race(memory, Number(args[0]), args[1]!);
      case 'compactor': {
        const compactor = new SummaryCompactor(new ExtractiveSummarizer(), {
          keepRecent: Number(args[0]),
        });
        return await compactor.compact(memory, { thresholdTokens: 1 });
      }
      default:
        throw new Error(`unknown role "${String(role)}"`);
    }
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
