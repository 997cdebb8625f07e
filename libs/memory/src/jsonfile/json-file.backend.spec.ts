import { jsonFileBackend, type MemoryBackend } from '@agent-memory/memory';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  describeBackendConformance,
  type ConformanceHarness,
} from '../../../../test/conformance/backend.conformance';
import { describeCompactionConformance } from '../../../../test/conformance/compaction.conformance';

const root = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-conf-'));
const dirs = new WeakMap<MemoryBackend, string>();
let counter = 0;

afterAll(() => rmSync(root, { recursive: true, force: true }));

const harness: ConformanceHarness = {
  create: async (opts) => {
    // A folder that does not exist yet: the first write creates it.
    const dir = join(root, `backend-${++counter}`, 'sessions');
    const backend = jsonFileBackend({ dir, ...opts });
    dirs.set(backend, dir);
    return backend;
  },
  reopen: async (backend, opts) => {
    const second = jsonFileBackend({ dir: dirs.get(backend)!, ...opts });
    dirs.set(second, dirs.get(backend)!);
    return second;
  },
};

describeBackendConformance('jsonfile', harness);
describeCompactionConformance('jsonfile', harness);
