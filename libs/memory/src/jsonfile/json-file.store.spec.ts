import {
  assistantMessage,
  CorruptSessionError,
  jsonFileBackend,
  JsonFileMemory,
  OpenAiCompatibleClient,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import {
  describeLegacySummarizationConformance,
  jsonFileInitializer,
} from '@agent-memory/test-conformance';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { types } from 'node:util';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('JsonFileMemory: corrupt files', () => {
  const corrupt: Record<string, string> = {
    'truncated JSON': '[{"role":"user","parts":[{"type":"text","text":"hel',
    'a number': '42',
    'messages that are not a list': '{"messages":"nope"}',
    'a message of an unknown role': '[{"role":"robot","parts":[]}]',
  };

  it.each(Object.entries(corrupt))(
    'raises CorruptSessionError naming the session for %s, and never overwrites it',
    async (_kind, bytes) => {
      const path = join(dir, 'broken.json');
      writeFileSync(path, bytes);
      const memory = await JsonFileMemory.open(path);
      const attempts: Array<() => Promise<unknown>> = [
        () => memory.retrieve(),
        () => memory.loadSnapshot(),
        () => memory.meta(),
        () => memory.save([userMessage('lost?')]),
        () => memory.saveSnapshot({ summary: 's' }, 1, null),
        () => memory.setMeta('title', 't'),
        () => JsonFileMemory.inspect(path),
      ];
      for (const attempt of attempts) {
        await expect(attempt()).rejects.toThrow(CorruptSessionError);
        await expect(attempt()).rejects.toMatchObject({
          code: 'CORRUPT_SESSION',
          session: 'broken',
        });
      }
      expect(readFileSync(path, 'utf8')).toBe(bytes);
      expect(readdirSync(dir)).toEqual(['broken.json']);

      await memory.clear();
      expect(existsSync(path)).toBe(false);
      expect(await JsonFileMemory.inspect(path)).toBeNull();
      await memory.save([userMessage('again')]);
      expect(await memory.retrieve()).toEqual([userMessage('again')]);
    },
  );

  it('uses the sessionId option in the error', async () => {
    const path = join(dir, 'file.json');
    writeFileSync(path, '{');
    const memory = await JsonFileMemory.open(path, { sessionId: 'tenant.chat-7' });
    await expect(memory.retrieve()).rejects.toMatchObject({ session: 'tenant.chat-7' });
    await expect(memory.retrieve()).rejects.toThrow(/tenant\.chat-7/);
  });

  it('the backend leaves a corrupt file out of the list, keeps it, and deletes it on request', async () => {
    const backend = jsonFileBackend({ dir });
    await (await backend.open('good')).save([userMessage('fine')]);
    writeFileSync(join(dir, 'bad.json'), '{"messages": [');
    writeFileSync(join(dir, 'notes.txt'), 'not a session');
    writeFileSync(join(dir, 'not a session id.json'), '[]');
    expect((await backend.list({})).items.map((i) => i.id)).toEqual(['good']);
    expect(readFileSync(join(dir, 'bad.json'), 'utf8')).toBe('{"messages": [');
    await expect(backend.inspect('bad')).rejects.toThrow(CorruptSessionError);
    await backend.delete('bad');
    expect(existsSync(join(dir, 'bad.json'))).toBe(false);
    expect(existsSync(join(dir, 'notes.txt'))).toBe(true);
  });
});

describe('JsonFileMemory: writes', () => {
  it('creates missing parent folders and leaves no temp or lock files behind', async () => {
    const path = join(dir, 'a', 'b', 'c', 'chat.json');
    const memory = await JsonFileMemory.open(path);
    await Promise.all(Array.from({ length: 10 }, (_, i) => memory.save([userMessage(`m${i}`)])));
    await memory.setMeta('title', 'nested');
    const { tail } = await memory.loadSnapshot();
    await memory.saveSnapshot({ summary: 's' }, tail[4]!.cursor, null);
    expect(readdirSync(join(dir, 'a', 'b', 'c')).sort()).toEqual(['chat.json', 'chat.log-1.jsonl']);
    expect((await memory.loadSnapshot()).tail).toHaveLength(5);
  });

  it('stores the first saves of many sessions at once into a folder that does not exist yet', async () => {
    // Each first save finds the folder missing; whichever makes it first must not fail the others.
    for (let round = 0; round < 10; round++) {
      const backend = jsonFileBackend({ dir: join(dir, `round-${round}`, 'data') });
      const ids = Array.from({ length: 16 }, (_, i) => `s${i}`);
      await Promise.all(
        ids.map(async (id, i) => {
          // Staggered, as requests arrive: some find the folder missing while another makes it.
          await new Promise((resolve) => setTimeout(resolve, i % 4));
          return (await backend.open(id)).save([userMessage(`first of ${id}`)]);
        }),
      );
      for (const id of ids) {
        const { tail } = await (await backend.open(id)).loadSnapshot();
        expect(tail.map((entry) => entry.message)).toEqual([userMessage(`first of ${id}`)]);
      }
    }
  });
  it('leaves no file behind when a save fails validation', async () => {
    const path = join(dir, 'chat.json');
    const memory = await JsonFileMemory.open(path);
    await expect(
      memory.save([{ role: 'user', parts: [{ type: 'x' }] } as unknown as Message]),
    ).rejects.toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stamps the file with the injected clock, which is updatedAt', async () => {
    const at = new Date('2026-05-01T10:00:00.000Z');
    const path = join(dir, 'clocked.json');
    const memory = await JsonFileMemory.open(path, { now: () => at });
    await memory.save([userMessage('x')]);
    expect(statSync(path).mtime.toISOString()).toBe(at.toISOString());
    expect((await JsonFileMemory.inspect(path))?.updatedAt).toBe(at.toISOString());
  });
});

describe('JsonFileMemory: locking', () => {
  it('takes over a lock left behind by a process that died holding it', async () => {
    const path = join(dir, 'orphaned.json');
    const lockDir = `${path}.lock`;
    mkdirSync(lockDir);
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(lockDir, longAgo, longAgo);
    const memory = await JsonFileMemory.open(path);
    await memory.save([userMessage('after the crash')]);
    expect(await memory.retrieve()).toEqual([userMessage('after the crash')]);
    expect(existsSync(lockDir)).toBe(false);
  });
});

describe('jsonFileBackend.check', () => {
  it('creates a missing folder, leaving it empty', async () => {
    const sessions = join(dir, 'new', 'sessions');
    await jsonFileBackend({ dir: sessions }).check();
    expect(readdirSync(sessions)).toEqual([]);
  });

  it('fails when the folder cannot be made', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    await expect(jsonFileBackend({ dir: join(file, 'sessions') }).check()).rejects.toThrow();
  });
});

describe('JsonFileMemory.inspect', () => {
  it('returns null for a file that does not exist', async () => {
    expect(await JsonFileMemory.inspect(join(dir, 'missing.json'))).toBeNull();
  });

  it('reports id, counts, snapshot, metadata and the modification time', async () => {
    const path = join(dir, 'tenant-1.chat.json');
    const memory = await JsonFileMemory.open(path, { pruneCompacted: true });
    await memory.save([
      userMessage('u0'),
      assistantMessage('a1'),
      userMessage('u2'),
      assistantMessage('a3'),
    ]);
    await memory.saveSnapshot({ summary: 's' }, 3, null);
    await memory.setMeta('title', 'Plan the trip');
    expect(await JsonFileMemory.inspect(path)).toEqual({
      id: 'tenant-1.chat',
      messages: 4,
      stored: 1,
      updatedAt: statSync(path).mtime.toISOString(),
      hasSnapshot: true,
      snapshotUpTo: 3,
      meta: { title: 'Plan the trip' },
    });
  });
});

describe('JsonFileMemory: deprecated summarization', () => {
  it('opened by JsonFileMemory.open, is the store itself: a JsonFileMemory, no proxy around it', async () => {
    // Nothing listens on port 9: opening must not reach the LLM.
    const llm = new OpenAiCompatibleClient({
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'test-key',
      model: 'test',
    });
    const memory = await JsonFileMemory.open(join(dir, 'legacy-class.json'), {
      summarization: { llm, threshold: 4, size: 2 },
    });
    expect(memory).toBeInstanceOf(JsonFileMemory);
    expect(types.isProxy(memory)).toBe(false);
  });
});

describeLegacySummarizationConformance('jsonfile', {
  backends: jsonFileInitializer(),
  storeClass: JsonFileMemory,
  secondWriter: true,
});
