import {
  assistantMessage,
  CorruptSessionError,
  jsonFileBackend,
  JsonFileMemory,
  SessionTooLargeError,
  userMessage,
} from '@agent-memory/memory';
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { texts } from '@agent-memory/conformance';
import { supportScriptPath } from '@agent-memory/test-support/paths';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const turn = (i: number) => [userMessage(`u${i}`), assistantMessage(`a${i}`)];

/** A session in log form (metadata moves it there) with `turns` turns saved. */
async function logSession(name: string, turns: number): Promise<JsonFileMemory> {
  const memory = await JsonFileMemory.open(join(dir, `${name}.json`));
  await memory.setMeta('title', name);
  for (let i = 0; i < turns; i++) await memory.save(turn(i));
  return memory;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('JsonFileMemory log form: crashes and damage', () => {
  it('ignores a torn last line and cuts it off on the next save', async () => {
    await logSession('torn', 2);
    const log = join(dir, 'torn.log-1.jsonl');
    const before = readFileSync(log, 'utf8');
    appendFileSync(log, '{"at":5,"m":[{"role":"user","parts":[{"type":"te');
    const reader = await JsonFileMemory.open(join(dir, 'torn.json'));
    expect(texts(await reader.retrieve())).toEqual(['u0', 'a0', 'u1', 'a1']);
    expect(await JsonFileMemory.inspect(join(dir, 'torn.json'))).toMatchObject({ messages: 4 });

    const t = '2026-12-04T10:00:00.000Z';
    await reader.save([userMessage('after the crash')], { savedAt: t });
    expect(readFileSync(log, 'utf8')).toBe(
      `${before}${JSON.stringify({ m: [userMessage('after the crash')], t, at: 5, n: 1 })}\n`,
    );
    expect(texts(await reader.retrieve())).toEqual(['u0', 'a0', 'u1', 'a1', 'after the crash']);
  });

  it('counts a session for listing from its last line, in the current and the older line form', async () => {
    const memory = await logSession('count', 2);
    const log = join(dir, 'count.log-1.jsonl');
    expect(readFileSync(log, 'utf8')).toMatch(/"at":3,"n":2\}\n$/);
    const backend = jsonFileBackend({ dir });
    expect(await backend.inspect('count')).toMatchObject({ messages: 4 });
    // A line written before lines ended with their count holds `at` first and no `n`.
    appendFileSync(log, `${JSON.stringify({ at: 5, m: turn(2) })}\n`);
    expect(await backend.inspect('count')).toMatchObject({ messages: 6 });
    expect(texts(await memory.retrieve())).toEqual(['u0', 'a0', 'u1', 'a1', 'u2', 'a2']);
    await memory.save(turn(3));
    expect(await backend.inspect('count')).toMatchObject({ messages: 8 });
    const page = await backend.list({});
    expect(page.items).toEqual([expect.objectContaining({ id: 'count', messages: 8 })]);
  });

  it.each([
    ['a line that is not JSON', 'not json\n'],
    ['a line that skips cursors', `${JSON.stringify({ at: 9, m: [userMessage('x')] })}\n`],
    ['a line with a bad message', '{"at":5,"m":[{"role":"robot","parts":[]}]}\n'],
    [
      'a line whose count is not its messages',
      `{"m":[${JSON.stringify(userMessage('x'))}],"at":5,"n":2}\n`,
    ],
  ])('raises CorruptSessionError for %s and never writes over it', async (_kind, line) => {
    await logSession('bad', 2);
    const log = join(dir, 'bad.log-1.jsonl');
    appendFileSync(log, line);
    const files = () => readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8'));
    const before = files();
    const memory = await JsonFileMemory.open(join(dir, 'bad.json'));
    for (const attempt of [
      () => memory.retrieve(),
      () => memory.save([userMessage('lost?')]),
      () => memory.setMeta('title', 'x'),
      () => memory.saveSnapshot({ summary: 's' }, 2, null),
    ]) {
      await expect(attempt()).rejects.toThrow(CorruptSessionError);
    }
    expect(files()).toEqual(before);
    await memory.clear();
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ['a negative upTo', -1],
    ['an upTo beyond the messages saved', 3],
  ])('raises CorruptSessionError for a snapshot with %s, in every form', async (_kind, upTo) => {
    const snapshot = { summary: 's', upTo, createdAt: '2026-01-01T00:00:00.000Z' };
    const object = join(dir, 'object.json');
    writeFileSync(object, JSON.stringify({ messages: turn(0), snapshot, meta: {}, saved: 2 }));
    await expect((await JsonFileMemory.open(object)).retrieve()).rejects.toThrow(
      CorruptSessionError,
    );
    await expect(JsonFileMemory.inspect(object)).rejects.toThrow(/snapshot covers up to/);
    await expect((await JsonFileMemory.open(object)).save(turn(1))).rejects.toThrow(
      CorruptSessionError,
    );

    await logSession('head', 1);
    const head = join(dir, 'head.json');
    const parsed = JSON.parse(readFileSync(head, 'utf8'));
    writeFileSync(head, JSON.stringify({ ...parsed, snapshot }));
    await expect((await JsonFileMemory.open(head)).loadSnapshot()).rejects.toThrow(
      CorruptSessionError,
    );
  });

  it('reads after a snapshot from the tail offset on: bytes before it are never read', async () => {
    const memory = await logSession('tail', 10);
    await memory.saveSnapshot({ summary: 'the first eight turns' }, 16, null);
    await memory.save(turn(10));
    const headPath = join(dir, 'tail.json');
    const head = JSON.parse(readFileSync(headPath, 'utf8'));
    expect(head.tail).toEqual({ offset: expect.any(Number), at: 17 });
    // Wreck every byte before the tail offset (same length, so offsets still hold).
    const log = join(dir, 'tail.log-1.jsonl');
    const bytes = readFileSync(log);
    bytes.fill(0x21, 0, head.tail.offset - 1);
    writeFileSync(log, bytes);

    const fresh = await JsonFileMemory.open(headPath);
    expect(texts(await fresh.retrieve()).slice(1)).toEqual(['u8', 'a8', 'u9', 'a9', 'u10', 'a10']);
    expect(await fresh.entries({ after: 16 })).toHaveLength(6);
    // An operator's read of the covered part does read them, and finds the damage.
    await expect(fresh.entries()).rejects.toThrow(CorruptSessionError);
  });

  it('takes over at once a lock left by a process that was killed', async () => {
    const path = join(dir, 'locked.json');
    symlinkSync(`${hostname()}:${deadPid()}:abcdef012345`, `${path}.lock`);
    const memory = await JsonFileMemory.open(path);
    // The test's 5 s timeout is below the 10 s after which an unknown holder's lock is taken.
    await memory.save([userMessage('no wait')]);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(texts(await memory.retrieve())).toEqual(['no wait']);
  });

  it('waits for a lock whose holder is alive', async () => {
    const path = join(dir, 'busy.json');
    symlinkSync(`${hostname()}:${process.pid}:other-holder`, `${path}.lock`);
    const memory = await JsonFileMemory.open(path);
    let saved = false;
    const saving = memory.save([userMessage('later')]).then(() => (saved = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(saved).toBe(false);
    rmSync(`${path}.lock`);
    await saving;
    expect(texts(await memory.retrieve())).toEqual(['later']);
  });

  it('removes temp files and locks of dead processes when the backend first opens', async () => {
    const dead = deadPid();
    writeFileSync(join(dir, `.s1.json.${dead}.0123456789ab.tmp`), 'half a write');
    writeFileSync(join(dir, `.s1.json.${process.pid}.0123456789ab.tmp`), 'a live write');
    symlinkSync(`${hostname()}:${dead}:abcdef012345`, join(dir, 's1.json.lock'));
    writeFileSync(join(dir, 's1.json'), '[]');
    await jsonFileBackend({ dir }).open('s1');
    expect(readdirSync(dir).sort()).toEqual(
      [`.s1.json.${process.pid}.0123456789ab.tmp`, 's1.json'].sort(),
    );
  });

  it('loses no acknowledged save when a writer is killed with SIGKILL mid-append', async () => {
    const path = join(dir, 'killed.json');
    await (await JsonFileMemory.open(path)).setMeta('title', 'log form');
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', supportScriptPath('jsonfile-kill.script.ts'), path, 'w'],
      { cwd: resolve(__dirname, '../../../..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let acked = -1;
    await new Promise<void>((done) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        acked = Number(line.split(' ')[1]);
        if (acked >= 30) {
          child.kill('SIGKILL');
          done();
        }
      });
    });
    await new Promise((r) => child.once('exit', r));

    const memory = await JsonFileMemory.open(path);
    const got = texts(await memory.retrieve()).filter((t) => !t.includes(' '));
    expect(got.length).toBeGreaterThanOrEqual(acked + 1);
    expect(got.slice(0, acked + 1)).toEqual(Array.from({ length: acked + 1 }, (_, i) => `w-${i}`));
    // The next write neither waits for the dead writer's lock nor lands after a torn line.
    await memory.save([userMessage('after')]);
    expect(texts(await memory.retrieve()).at(-1)).toBe('after');
    expect(readdirSync(dir).filter((n) => n.endsWith('.lock'))).toEqual([]);
  }, 60_000);
});

describe('JsonFileMemory log form: idempotency keys and limits', () => {
  it('stores a keyed save once and answers a repeat as the first time, across restarts and snapshots', async () => {
    const path = join(dir, 'keys.json');
    const memory = await JsonFileMemory.open(path);
    expect(await memory.save(turn(0), { idempotencyKey: 'turn-0' })).toEqual({
      first: 1,
      last: 2,
      replayed: false,
    });
    expect(await memory.save(turn(0), { idempotencyKey: 'turn-0' })).toEqual({
      first: 1,
      last: 2,
      replayed: true,
    });
    await memory.save(turn(1), { idempotencyKey: 'turn-1' });
    const restarted = await JsonFileMemory.open(path);
    expect(await restarted.save(turn(1), { idempotencyKey: 'turn-1' })).toEqual({
      first: 3,
      last: 4,
      replayed: true,
    });
    await restarted.save(turn(2));
    await restarted.saveSnapshot({ summary: 's' }, 6, null);
    const again = await JsonFileMemory.open(path);
    expect(await again.save(turn(0), { idempotencyKey: 'turn-0' })).toMatchObject({
      first: 1,
      replayed: true,
    });
    expect(await JsonFileMemory.inspect(path)).toMatchObject({ messages: 6 });
    await again.clear();
    expect(await again.save(turn(0), { idempotencyKey: 'turn-0' })).toEqual({
      first: 1,
      last: 2,
      replayed: false,
    });
  });

  it('stores saves that wait together as one group: in call order, keys replayed, a refused one alone', async () => {
    const path = join(dir, 'group.json');
    const memory = await JsonFileMemory.open(path, { maxSessionBytes: 20_000 });
    await memory.setMeta('title', 'log form');
    const other = await JsonFileMemory.open(path); // its own queue: it contends for the lock
    const calls = [
      memory.save(turn(0)),
      memory.save(turn(1), { idempotencyKey: 'k1' }),
      memory.save([userMessage('z'.repeat(30_000))]),
      memory.save(turn(1), { idempotencyKey: 'k1' }),
      other.save(turn(9)),
      memory.save(turn(2)),
    ];
    const settled = await Promise.allSettled(calls);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(SessionTooLargeError);
    const value = (i: number) => (settled[i] as PromiseFulfilledResult<unknown>).value;
    expect(value(1)).toMatchObject({ replayed: false });
    expect(value(3)).toEqual({ ...(value(1) as object), replayed: true });
    const got = texts(await memory.retrieve());
    expect(got.filter((t) => !t.startsWith('u9') && !t.startsWith('a9'))).toEqual([
      'u0',
      'a0',
      'u1',
      'a1',
      'u2',
      'a2',
    ]);
    const nine = got.indexOf('u9');
    expect(got[nine + 1]).toBe('a9');
    expect(got).toHaveLength(8);
  });

  it('refuses a save past maxSessionBytes with SessionTooLargeError, storing nothing', async () => {
    const path = join(dir, 'big.json');
    const memory = await JsonFileMemory.open(path, { maxSessionBytes: 2_000, plainMaxBytes: 100 });
    await memory.save([userMessage('x'.repeat(500))]);
    await memory.save([userMessage('y'.repeat(500))]);
    const sizes = () => readdirSync(dir).map((name) => statSync(join(dir, name)).size);
    const before = sizes();
    const error = await memory.save([userMessage('z'.repeat(1_000))]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionTooLargeError);
    expect(error).toMatchObject({ code: 'SESSION_TOO_LARGE', session: 'big', limit: 2_000 });
    expect((error as SessionTooLargeError).size).toBeGreaterThan(2_000);
    expect(sizes()).toEqual(before);
    expect(await JsonFileMemory.inspect(path)).toMatchObject({ messages: 2 });
  });

  it('rejects a size limit that is not a positive whole number', async () => {
    await expect(JsonFileMemory.open(join(dir, 'x.json'), { maxSessionBytes: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('jsonFileBackend: shared cache and listing', () => {
  it('sees what another store, or another process’s store, wrote since it cached the session', async () => {
    const backend = jsonFileBackend({ dir });
    const a = await backend.open('shared');
    const b = await backend.open('shared');
    await a.setMeta('title', 'cached');
    await a.save(turn(0));
    expect(texts(await b.retrieve())).toEqual(['u0', 'a0']);
    // A store with its own cache stands for another process.
    const other = await JsonFileMemory.open(join(dir, 'shared.json'));
    await other.save(turn(1));
    await other.setMeta('title', 'changed');
    expect(texts(await b.retrieve())).toEqual(['u0', 'a0', 'u1', 'a1']);
    expect(await b.meta()).toEqual({ title: 'changed' });
    await other.clear();
    expect(await b.retrieve()).toEqual([]);
  });

  it('keeps the cache exact while reads run during saves of this and another process', async () => {
    const backend = jsonFileBackend({ dir });
    const mine = await backend.open('busy');
    await mine.setMeta('title', 'log form');
    const other = await JsonFileMemory.open(join(dir, 'busy.json'));
    let saving = true;
    const reads = (async () => {
      let count = 0;
      while (saving) {
        const got = texts(await (await backend.open('busy')).retrieve());
        expect(new Set(got).size).toBe(got.length);
        count++;
      }
      return count;
    })();
    await Promise.all([
      (async () => {
        for (let i = 0; i < 30; i++) await mine.save([userMessage(`mine-${i}`)]);
      })(),
      (async () => {
        for (let i = 0; i < 30; i++) await other.save([userMessage(`other-${i}`)]);
      })(),
    ]);
    saving = false;
    expect(await reads).toBeGreaterThan(0);
    const cached = texts(await mine.retrieve());
    const fresh = texts(await (await JsonFileMemory.open(join(dir, 'busy.json'))).retrieve());
    expect(cached).toEqual(fresh);
    expect(fresh).toHaveLength(60);
    expect(fresh.filter((t) => t.startsWith('mine-'))).toEqual(
      Array.from({ length: 30 }, (_, i) => `mine-${i}`),
    );
  });

  it('lists newest first from file times, a metadata-only session included, with stable tokens', async () => {
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    const backend = jsonFileBackend({ dir, now: () => new Date((clock += 1_000)) });
    for (const id of ['s1', 's2', 's3', 's4', 's5']) await (await backend.open(id)).save(turn(0));
    await (await backend.open('meta-only')).setMeta('title', 'nothing said yet');
    const first = await backend.list({ limit: 2 });
    expect(first.items.map((i) => i.id)).toEqual(['meta-only', 's5']);
    expect(first.items[0]).toMatchObject({ messages: 0, meta: { title: 'nothing said yet' } });
    // Writes between pages move those sessions to the front; the next page neither repeats nor skips.
    await (await backend.open('s1')).save(turn(1));
    await (await backend.open('s6')).save(turn(0));
    const second = await backend.list({ limit: 2, after: first.next! });
    expect(second.items.map((i) => i.id)).toEqual(['s4', 's3']);
    const third = await backend.list({ limit: 2, after: second.next! });
    expect(third.items.map((i) => i.id)).toEqual(['s2']);
    expect(third.next).toBeNull();
    expect((await backend.list({ search: 'NOTHING' })).items.map((i) => i.id)).toEqual([
      'meta-only',
    ]);
  });
});
