import { JsonFileMemory, userMessage, assistantMessage } from '@agent-memory/memory';
import { jsonFileDriver } from './json-file.driver';
import { texts } from '@agent-memory/conformance';
import { backendSpec } from '@agent-memory/test-conformance';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTogether, startScript } from '@agent-memory/test-support/child-script';
import {
  STORE_PROCESS_SCRIPT,
  storeProcessArgs,
  type RacerResult,
  type StoreProcessRole,
} from '@agent-memory/test-support/store-process';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-xproc-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A store process on session `session` of the folder, i.e. the file `<dir>/<session>.json`. */
function startChild<T>(role: StoreProcessRole, session: string, ...args: (string | number)[]) {
  const spec = backendSpec(jsonFileDriver, { MEMORY_DIR: dir });
  return startScript<T>(STORE_PROCESS_SCRIPT, storeProcessArgs(role, spec, session, ...args));
}

describe('JsonFileMemory across processes', () => {
  it('loses nothing when 4 processes each save 50 turns to one file', async () => {
    const writers = ['0', '1', '2', '3'];
    await runTogether(writers.map((w) => startChild('writer', 'shared', w, 50)));

    const file = join(dir, 'shared.json');
    const got = texts(await (await JsonFileMemory.open(file)).retrieve());
    expect(got).toHaveLength(400);
    for (let i = 0; i < got.length; i += 2) expect(got[i + 1]).toBe(got[i]!.replace('-q', '-a'));
    for (const w of writers) {
      const mine = got.filter((t) => t.startsWith(`w${w}-q`));
      expect(mine).toEqual(Array.from({ length: 50 }, (_, i) => `w${w}-q${i}`));
    }
    expect(await JsonFileMemory.inspect(file)).toMatchObject({ messages: 400, stored: 400 });
    expect(readdirSync(dir).sort()).toEqual(['shared.json', 'shared.log-1.jsonl']);
  }, 120_000);

  it('lets exactly one of two processes racing saveSnapshot with the same prev win', async () => {
    const memory = await JsonFileMemory.open(join(dir, 'race.json'));
    await memory.save([
      userMessage('u0'),
      assistantMessage('a1'),
      userMessage('u2'),
      assistantMessage('a3'),
    ]);
    const racers = ['2', '3'];
    const results = await runTogether(
      racers.map((upTo) => startChild<RacerResult>('snapshot-racer', 'race', upTo, `by ${upTo}`)),
    );

    const outcomes = results.map((r) => r.outcome).sort();
    expect(outcomes).toEqual(['lost', 'won']);
    expect(results.find((r) => r.outcome === 'lost')?.code).toBe('SNAPSHOT_CONFLICT');
    const winner = racers[results.findIndex((r) => r.outcome === 'won')];
    const { snapshot } = await memory.loadSnapshot();
    expect(snapshot?.summary).toBe(`by ${winner}`);
  }, 60_000);
});
