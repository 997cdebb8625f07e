import {
  assistantMessage,
  JsonFileMemory,
  SUMMARY_PREFIX,
  toolResultMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '@agent-memory/test-support/paths';

const fixtures = fixturePath('phero');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-format-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const readLines = (path: string): unknown[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

/** The clock of the stores below: the time every batch they save is recorded with. */
const T = '2026-12-04T10:00:00.000Z';
const now = () => new Date(T);
/** A message as a stored array holds the first message of a batch saved at `T`. */
const marked = (message: Message) => ({ ...message, savedAt: T });

function fixture(name: string): string {
  const path = join(dir, name);
  copyFileSync(join(fixtures, name), path);
  return path;
}

/** What the Phero fixtures hold, in our canonical shape. */
const PHERO: Record<string, Message[]> = {
  'text.json': [
    { role: 'system', parts: [{ type: 'text', text: 'You are a helpful assistant.' }] },
    { role: 'user', parts: [{ type: 'text', text: 'Hello, who are you?' }], name: 'bob' },
    assistantMessage('I am an agent built with Phero.'),
    { role: 'assistant', parts: [] },
  ],
  'images.json': [
    userMessage([
      { type: 'text', text: 'Compare these two pictures.' },
      { type: 'image_url', imageUrl: 'https://example.test/left.jpg' },
      {
        type: 'image_base64',
        imageBase64: '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8U',
        mimeType: 'image/jpeg',
      },
    ]),
    assistantMessage('The left one is brighter.'),
  ],
  'tools.json': [
    userMessage('What is the weather in Rome and in Atlantis?'),
    {
      role: 'assistant',
      parts: [
        {
          type: 'reasoning',
          text: 'I should call the weather tool for both cities.',
          signature: 'EqQBCkYIBRgCKkB0c2lnbmF0dXJlLWJ5dGVz',
        },
      ],
      toolCalls: [
        {
          id: 'call_rome',
          type: 'function',
          function: { name: 'weather', arguments: '{"city":"Rome"}' },
        },
        {
          id: 'call_atlantis',
          type: 'function',
          function: { name: 'weather', arguments: '{"city":"Atlantis"}' },
        },
      ],
    },
    { ...toolResultMessage('call_rome', 'sunny, 24°C'), name: 'weather' },
    {
      ...toolResultMessage('call_atlantis', 'unknown city: Atlantis', { error: true }),
      name: 'weather',
    },
    assistantMessage('Rome is sunny at 24°C; I could not find Atlantis.'),
  ],
};

describe('JsonFileMemory file format', () => {
  it('writes a plain JSON array until the first metadata, then a head and a JSON Lines log', async () => {
    const path = join(dir, 'chat.json');
    const memory = await JsonFileMemory.open(path, { now });
    const turn = [userMessage('hi'), assistantMessage('hello')];
    await memory.save(turn);
    // The batch's time marks its first message; the second inherits it.
    expect(readJson(path)).toEqual([marked(turn[0]!), turn[1]]);

    await memory.setMeta('title', 'greetings');
    expect(readJson(path)).toEqual({
      format: 'agent-memory/session-log@1',
      log: 'chat.log-1.jsonl',
      generation: 1,
      from: 1,
      tail: { offset: 0, at: 1 },
      saved: 2,
      snapshot: null,
      meta: { title: 'greetings' },
      keys: [],
    });
    await memory.save([userMessage('more')], { savedAt: '2026-12-04T11:30:00+01:00' });
    expect(readLines(join(dir, 'chat.log-1.jsonl'))).toEqual([
      { m: turn, t: T, at: 1, n: 2 },
      { m: [userMessage('more')], t: '2026-12-04T10:30:00.000Z', at: 3, n: 1 },
    ]);
    expect(readdirSync(dir).sort()).toEqual(['chat.json', 'chat.log-1.jsonl']);
  });

  it('moves a plain session to the log form once it passes plainMaxBytes', async () => {
    const path = join(dir, 'grows.json');
    const memory = await JsonFileMemory.open(path, { plainMaxBytes: 200, now });
    const earlier = '2026-12-01T08:00:00.000Z';
    await memory.save([userMessage('short')], { savedAt: earlier });
    expect(readJson(path)).toEqual([{ ...userMessage('short'), savedAt: earlier }]);
    const long = userMessage('x'.repeat(300));
    await memory.save([long]);
    expect(readJson(path)).toMatchObject({ log: 'grows.log-1.jsonl', saved: 2 });
    // One line per save time, so each batch keeps its own.
    expect(readLines(join(dir, 'grows.log-1.jsonl'))).toEqual([
      { m: [userMessage('short')], t: earlier, at: 1, n: 1 },
      { m: [long], t: T, at: 2, n: 1 },
    ]);
    expect((await memory.entries()).map((e) => e.savedAt)).toEqual([earlier, T]);
    expect(await memory.retrieve()).toEqual([userMessage('short'), long]);
  });

  it('writes an object from the first snapshot on, and reads it back', async () => {
    const path = join(dir, 'chat.json');
    const memory = await JsonFileMemory.open(path, { now });
    await memory.save([userMessage('u0'), assistantMessage('a1'), userMessage('u2')]);
    const stored = await memory.saveSnapshot({ summary: 'a greeting' }, 2, null);
    expect(readJson(path)).toMatchObject({ snapshot: stored, meta: {}, saved: 3, tail: { at: 1 } });
    const again = await JsonFileMemory.open(path);
    expect(await again.loadSnapshot()).toEqual({
      snapshot: stored,
      tail: [{ cursor: 3, message: userMessage('u2'), savedAt: T }],
    });
  });

  it('loads an older plain-array file and keeps appending to it', async () => {
    const path = join(dir, 'old.json');
    const old = [userMessage('from an older version'), assistantMessage('still here')];
    writeFileSync(path, JSON.stringify(old, null, 2));
    const memory = await JsonFileMemory.open(path, { now });
    expect(await memory.retrieve()).toEqual(old);
    await memory.save([userMessage('new')]);
    expect(readJson(path)).toEqual([...old, marked(userMessage('new'))]);
    // The older messages' time is unknown, and stays so.
    expect((await memory.entries()).map((e) => e.savedAt)).toEqual([undefined, undefined, T]);
  });

  it.each(Object.keys(PHERO))('loads the Phero file %s and round-trips it', async (name) => {
    const path = fixture(name);
    const memory = await JsonFileMemory.open(path, { now });
    expect(await memory.retrieve()).toEqual(PHERO[name]);
    expect((await memory.loadSnapshot()).tail.map((e) => e.cursor)).toEqual(
      PHERO[name]!.map((_, i) => i + 1),
    );
    expect((await memory.entries()).every((e) => !('savedAt' in e))).toBe(true);

    const next = userMessage('one more');
    await memory.save([next]);
    // Appended in place: Phero's messages stay as Phero wrote them.
    const original = readJson(join(fixtures, name)) as unknown[];
    expect(readJson(path)).toEqual([...original, marked(next)]);
    expect(await (await JsonFileMemory.open(path)).retrieve()).toEqual([...PHERO[name]!, next]);
  });

  it('loads a Phero file in object form with its snapshot and metadata', async () => {
    const path = fixture('snapshot.json');
    const memory = await JsonFileMemory.open(path, { now });
    const snapshot = {
      summary: 'The user asked for a release plan; the assistant listed three steps.',
      upTo: 4,
      createdAt: '2026-03-14T09:26:53.589793238Z',
    };
    expect(await memory.loadSnapshot()).toEqual({
      snapshot,
      tail: [
        { cursor: 5, message: userMessage('and then?') },
        { cursor: 6, message: assistantMessage('Then we ship it.') },
      ],
    });
    expect(await memory.retrieve()).toEqual([
      userMessage(SUMMARY_PREFIX + snapshot.summary),
      userMessage('and then?'),
      assistantMessage('Then we ship it.'),
    ]);
    expect(await memory.meta()).toEqual({ title: 'release plan' });
    expect(await JsonFileMemory.inspect(path)).toMatchObject({
      id: 'snapshot',
      messages: 6,
      stored: 2,
      hasSnapshot: true,
      snapshotUpTo: 4,
      meta: { title: 'release plan' },
    });

    await memory.save([userMessage('ship it')]);
    expect(readJson(path)).toMatchObject({
      log: 'snapshot.log-1.jsonl',
      from: 5,
      saved: 7,
      snapshot,
      meta: { title: 'release plan' },
    });
    expect(readLines(join(dir, 'snapshot.log-1.jsonl'))).toEqual([
      { m: [userMessage('and then?'), assistantMessage('Then we ship it.')], at: 5, n: 2 },
      { m: [userMessage('ship it')], t: T, at: 7, n: 1 },
    ]);
    expect(await JsonFileMemory.inspect(path)).toMatchObject({ messages: 7, stored: 3 });
  });

  it("reads Phero's cleared file (null) and an empty file as empty sessions", async () => {
    for (const path of [fixture('cleared.json'), join(dir, 'empty.json')]) {
      if (path.endsWith('empty.json')) writeFileSync(path, '');
      const memory = await JsonFileMemory.open(path, { now });
      expect(await memory.retrieve()).toEqual([]);
      expect(await JsonFileMemory.inspect(path)).toMatchObject({ messages: 0, stored: 0 });
      await memory.save([userMessage('fresh start')]);
      expect(readJson(path)).toEqual([marked(userMessage('fresh start'))]);
    }
  });
});
