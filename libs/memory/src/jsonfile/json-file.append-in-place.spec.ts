/**
 * Saves to a plain session append in place over the array's closing bracket: what the file holds
 * after them, what a cut-off append reads as, and that a file replaced between two saves (by a
 * Phero process) takes the next save, not the file the previous save had open.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pheroDecode, pheroRewrite } from '@agent-memory/test-support/phero-form';
import { CorruptSessionError } from '../core/errors';
import { assistantMessage, userMessage } from '../core/message';
import { jsonFileBackend } from './json-file.backend';
import { JsonFileMemory } from './json-file.store';

const turn = [userMessage('q'), assistantMessage('a')];
/** The first text of each message, ours or as Phero's decoding names the fields. */
const texts = (messages: readonly unknown[]) =>
  messages.map((m) => {
    const message = m as { parts?: unknown[]; Parts?: unknown[] };
    const part = (message.parts ?? message.Parts)![0] as { text?: string; Text?: string };
    return part.text ?? part.Text;
  });

describe('JsonFileMemory: saves appended in place to the plain array', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'jsonfile-append-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name = 's.json') => join(dir, name);
  const read = (name = 's.json') => readFileSync(file(name), 'utf8');

  it('writes each later batch on its own line of the same file, which Phero reads', async () => {
    const memory = await JsonFileMemory.open(file());
    await memory.save([userMessage('first')]);
    const { ino } = statSync(file());
    await memory.save(turn, { idempotencyKey: 'turn-1' });
    await memory.save([userMessage('last')]);
    expect(statSync(file()).ino).toBe(ino);
    expect(
      read()
        .split('\n')
        .map((line) => line.slice(0, 2)),
    ).toEqual(['[{', ',{', ',{']);
    expect(texts(pheroDecode(JSON.parse(read())))).toEqual(['first', 'q', 'a', 'last']);
    // The key copy journals the appended save.
    expect(read('s.json.keys').trim().split('\n')).toHaveLength(1);
    expect(await memory.save(turn, { idempotencyKey: 'turn-1' })).toEqual({
      first: 2,
      last: 3,
      replayed: true,
    });
  });

  it('reads a cut-off append as the array before it, and cuts the file back', async () => {
    const memory = await JsonFileMemory.open(file());
    await memory.save(turn);
    const whole = read();
    // What a crash in the middle of the next append leaves: the bracket overwritten, half a batch.
    writeFileSync(file(), `${whole.slice(0, -1)}\n,{"role":"user","parts":[{"type":"te`);
    const reopened = await JsonFileMemory.open(file());
    expect(texts(await reopened.retrieve())).toEqual(['q', 'a']);
    expect(read()).toBe(whole);
    expect(await reopened.save([userMessage('next')])).toEqual({
      first: 3,
      last: 3,
      replayed: false,
    });
    expect(texts(JSON.parse(read()))).toEqual(['q', 'a', 'next']);
  });

  it('keeps the keys a Phero rewrite dropped from the marks through the saves after it', async () => {
    const memory = await JsonFileMemory.open(file());
    await memory.save(turn, { idempotencyKey: 'turn-1' });
    writeFileSync(file(), JSON.stringify(pheroRewrite(JSON.parse(read()))));
    // A save after the rewrite (with or without a key), then a process that reads the file anew.
    await (await JsonFileMemory.open(file())).save([userMessage('after')]);
    const fresh = await JsonFileMemory.open(file());
    expect(await fresh.save(turn, { idempotencyKey: 'turn-1' })).toEqual({
      first: 1,
      last: 2,
      replayed: true,
    });
    expect(texts(JSON.parse(read()))).toEqual(['q', 'a', 'after']);
  });

  it('still refuses an array cut off in a way no append leaves', async () => {
    writeFileSync(file(), '[{"role":"user","parts":[]},{"role":"us');
    const memory = await JsonFileMemory.open(file());
    await expect(memory.retrieve()).rejects.toThrow(CorruptSessionError);
  });

  it.each([
    ['rewritten by Phero', (raw: unknown) => JSON.stringify(pheroRewrite(raw))],
    ['replaced by a copy of itself', (_raw: unknown, text: string) => text],
  ])(
    'stores the next save in the file a Phero process %s between two saves',
    async (_case, rewrite) => {
      const backend = jsonFileBackend({ dir });
      try {
        const memory = await backend.open('s');
        await memory.save(turn, { idempotencyKey: 'turn-1' });
        await memory.save([userMessage('second')], { idempotencyKey: 'turn-2' });
        const text = read();
        const temp = join(dir, 'phero.tmp');
        writeFileSync(temp, rewrite(JSON.parse(text), text));
        renameSync(temp, file());
        await memory.save([userMessage('third')], { idempotencyKey: 'turn-3' });
        expect(texts(JSON.parse(read()))).toEqual(['q', 'a', 'second', 'third']);
        expect(await memory.save(turn, { idempotencyKey: 'turn-1' })).toMatchObject({
          replayed: true,
        });
      } finally {
        await backend.close();
      }
    },
  );
});
