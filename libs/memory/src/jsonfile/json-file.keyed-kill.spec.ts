/**
 * A keyed save killed with SIGKILL in the middle of its write (the session file renamed but not
 * its key copy, or the other way round), then retried after a restart: stored exactly once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonFileHarness } from '@agent-memory/test-conformance';
import { describeKeyedSaveKill } from '@agent-memory/test-support/keyed-save-kill';

describeKeyedSaveKill('JsonFileMemory', jsonFileHarness(), async (store, session) => {
  if (store.kind !== 'jsonfile') throw new Error('a JSON-file store');
  return JSON.parse(await readFile(join(store.dir, `${session}.json`), 'utf8'));
});
