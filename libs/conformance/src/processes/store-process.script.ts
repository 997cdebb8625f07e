/**
 * One store process of a cross-process test: `store-process.script <module JSON> <role>
 * <storage JSON> <session> …args` (see `store-process.ts`). It opens the storage with the
 * `openStorage` of the store's process module, prints `ready`, waits for `go` on stdin, does its
 * part and prints one JSON line with its result.
 */
import type { MemoryBackendInitializer, ProcessModule } from '../initializer';
import { exportOf, loadModule } from '../module-loader';
import { readyAndWaitForGo } from '../support/child-script';
import type { StoreProcessRole } from './store-process';
import { playStoreRole } from './store-roles';

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
