// The test file `agent-memory-conformance` runs with vitest: the store's module (its path in
// AGENT_MEMORY_CONFORMANCE_MODULE, TypeScript or JavaScript, transformed by vitest) gives the
// initializer; the runner's functions are passed explicitly, so no globals are needed.
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// Node's own loader: the package and the library it requires are the instances the store uses.
const conformance = createRequire(import.meta.url)('../dist/index.js');

const path = process.env.AGENT_MEMORY_CONFORMANCE_MODULE;
if (!path) throw new Error('AGENT_MEMORY_CONFORMANCE_MODULE names no module');
const exports = await import(path);
// Child processes of the cross-process tests load the same module, unless it names another.
const store = conformance.assertMemoryBackendInitializer(
  conformance.defaultExportOf(exports),
  path,
);

conformance.describeMemoryBackendConformance(store, {
  runner: { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach },
});
