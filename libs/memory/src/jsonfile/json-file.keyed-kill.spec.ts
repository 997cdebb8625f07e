/**
 * A keyed save appended in place to a plain session, killed with SIGKILL at each of its writes
 * (the key copy's line, the session's write, half of that write, its fdatasync), then retried
 * after a restart: stored exactly once, and the file left a whole array.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonFileHarness } from '@agent-memory/test-conformance';
import { settingsFrom } from '@agent-memory/test-support/isolated-stores';
import { describeKeyedSaveKill } from '@agent-memory/test-support/keyed-save-kill';
import { jsonFileDriver } from './json-file.driver';

describeKeyedSaveKill('JsonFileMemory', jsonFileHarness(), {
  writes: 'file-writes',
  holds: [
    ['key-copy', false],
    ['messages', false],
    ['torn-messages', false],
    ['unsynced-messages', true],
  ],
  readRaw: async (store, session) => {
    const { dir } = settingsFrom(jsonFileDriver, store.env);
    return JSON.parse(await readFile(join(dir, `${session}.json`), 'utf8'));
  },
});
