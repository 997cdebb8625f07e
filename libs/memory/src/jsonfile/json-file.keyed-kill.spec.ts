/**
 * A keyed save killed with SIGKILL in the middle of its write (the session file renamed but not
 * its key copy, or the other way round), then retried after a restart: stored exactly once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jsonFileHarness } from '@agent-memory/test-conformance';
import { settingsFrom } from '@agent-memory/test-support/isolated-stores';
import { describeKeyedSaveKill } from '@agent-memory/test-support/keyed-save-kill';
import { jsonFileDriver } from './json-file.driver';

describeKeyedSaveKill('JsonFileMemory', jsonFileHarness(), {
  writes: 'file-renames',
  readRaw: async (store, session) => {
    const { dir } = settingsFrom(jsonFileDriver, store.env);
    return JSON.parse(await readFile(join(dir, `${session}.json`), 'utf8'));
  },
});
