/**
 * Idempotency keys and the JSON-file forms: a keyed session stays the plain array (its keys marked
 * on the messages and copied to `<id>.json.keys`), and sessions an earlier version stored in
 * another form for their keys keep them.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchDigest } from '../core/idempotency';
import { IDEMPOTENCY_KEY_MARK } from '../core/idempotency-marks';
import { assistantMessage, userMessage } from '../core/message';
import { jsonFileBackend } from './json-file.backend';
import { JsonFileMemory } from './json-file.store';
import { HEAD_FORMAT } from './session-head';
import { encodeLogLine } from './session-log';

const turn = [userMessage('q'), assistantMessage('a')];
const T = '2026-12-04T10:00:00.000Z';

describe('JsonFileMemory: idempotency keys and the stored form', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'jsonfile-keys-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const readJson = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8'));

  it('keeps a keyed session the plain array, the key marked on its batch and copied beside it', async () => {
    const memory = await JsonFileMemory.open(join(dir, 's.json'));
    await memory.save(turn, { idempotencyKey: 'turn-1' });
    const stored = readJson('s.json');
    expect(Array.isArray(stored)).toBe(true);
    expect(stored[0][IDEMPOTENCY_KEY_MARK]).toEqual({
      key: 'turn-1',
      count: 2,
      digest: batchDigest(turn),
    });
    expect(readJson('s.json.keys')).toEqual([
      { key: 'turn-1', first: 1, last: 2, digest: batchDigest(turn) },
    ]);
    // The copy is no session of the folder.
    const backend = jsonFileBackend({ dir });
    expect((await backend.list({})).items.map((item) => item.id)).toEqual(['s']);
    await backend.close();
  });

  it('stores a keyed save whose key copy cannot be written: the marks hold the key', async () => {
    // A folder where the copy goes makes its rename fail, as a full disk would.
    mkdirSync(join(dir, 'c.json.keys'));
    const memory = await JsonFileMemory.open(join(dir, 'c.json'));
    expect(await memory.save(turn, { idempotencyKey: 'turn-1' })).toEqual({
      first: 1,
      last: 2,
      replayed: false,
    });
    const reopened = await JsonFileMemory.open(join(dir, 'c.json'));
    expect(await reopened.save(turn, { idempotencyKey: 'turn-1' })).toMatchObject({
      replayed: true,
    });
    expect(readJson('c.json')).toHaveLength(2);
  });

  it('moves a session an earlier version put in the log form for its key back to the array, keeping the key', async () => {
    const log = encodeLogLine(1, turn, 'turn-1', batchDigest(turn), T);
    writeFileSync(join(dir, 'old.log-1.jsonl'), log);
    writeFileSync(
      join(dir, 'old.json'),
      JSON.stringify({
        format: HEAD_FORMAT,
        log: 'old.log-1.jsonl',
        generation: 1,
        from: 1,
        tail: { offset: 0, at: 1 },
        saved: 2,
        snapshot: null,
        meta: {},
        keys: [],
      }),
    );
    const memory = await JsonFileMemory.open(join(dir, 'old.json'));
    expect(await memory.save(turn, { idempotencyKey: 'turn-1' })).toEqual({
      first: 1,
      last: 2,
      replayed: true,
    });
    await memory.save([userMessage('next')], { idempotencyKey: 'turn-2' });
    expect(Array.isArray(readJson('old.json'))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.includes('.log-'))).toEqual([]);
    const reopened = await JsonFileMemory.open(join(dir, 'old.json'));
    expect(await reopened.save(turn, { idempotencyKey: 'turn-1' })).toEqual({
      first: 1,
      last: 2,
      replayed: true,
    });
    expect((await reopened.entries()).map((e) => e.cursor)).toEqual([1, 2, 3]);
  });

  it('rewrites the older single object with its keys as the plain array, keeping them', async () => {
    writeFileSync(
      join(dir, 'single.json'),
      JSON.stringify({
        messages: turn,
        saved: 2,
        snapshot: null,
        meta: {},
        idempotencyKeys: [{ key: 'turn-1', first: 1, last: 2, digest: batchDigest(turn) }],
      }),
    );
    const memory = await JsonFileMemory.open(join(dir, 'single.json'));
    await memory.save([userMessage('next')]);
    expect(Array.isArray(readJson('single.json'))).toBe(true);
    expect(await memory.save(turn, { idempotencyKey: 'turn-1' })).toMatchObject({ replayed: true });
  });

  it('removes the key copy when the session moves to the log form (its head holds the keys)', async () => {
    const memory = await JsonFileMemory.open(join(dir, 'm.json'));
    await memory.save(turn, { idempotencyKey: 'turn-1' });
    await memory.setMeta('title', 't');
    expect(existsSync(join(dir, 'm.json.keys'))).toBe(false);
    expect(await memory.save(turn, { idempotencyKey: 'turn-1' })).toMatchObject({ replayed: true });
  });
});
