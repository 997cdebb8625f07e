import {
  ConcurrentUpdateError,
  CorruptSessionError,
  InvalidSessionIdError,
  SnapshotConflictError,
  assistantMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { NatsMemory, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KV } from 'nats';
import { conversation, texts } from '@agent-memory/conformance';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { fixturePath } from '@agent-memory/test-support/paths';

const buckets = new TestBuckets('store');
const fixtures = fixturePath('phero');
let backend: NatsBackend;
let kv: KV;
let counter = 0;
const newId = () => `store-${process.pid}-${++counter}`;

beforeAll(async () => {
  backend = await natsBackend({ servers: testNatsUrl(), bucket: buckets.next() });
  kv = backend.kv;
});
afterAll(async () => {
  await backend.close();
  await buckets.cleanup();
});

/** The clock of the stores below: the time every batch they save is recorded with. */
const T = '2026-12-04T10:00:00.000Z';
const now = () => new Date(T);
/** A message as the stored array holds the first message of a run saved at `at`. */
const marked = (message: Message, at = T) => ({ ...message, savedAt: at });

const storedJson = async (id: string) =>
  JSON.parse(new TextDecoder().decode((await kv.get(id))!.value));

/**
 * The real KV, except that right after every read of `key` another writer stores `value` there:
 * each compare-and-swap based on that read then loses a genuine race on the server.
 */
function kvWithRival(key: string, value: () => string): KV {
  return new Proxy(kv, {
    get(target, prop, receiver) {
      if (prop !== 'get') return Reflect.get(target, prop, receiver);
      return async (k: string) => {
        const entry = await target.get(k);
        if (k === key) await target.put(key, value());
        return entry;
      };
    },
  });
}

describe('NatsMemory', () => {
  it('validates the session id before any I/O', async () => {
    await expect(NatsMemory.open(kv, 'a b')).rejects.toThrow(InvalidSessionIdError);
  });

  it('stores a plain session as the compact JSON array of its messages, what Phero decodes', async () => {
    const id = newId();
    const memory = await NatsMemory.open(kv, id, { now });
    await memory.save(conversation(2));
    const later = '2026-12-04T10:05:00.000Z';
    await memory.save([userMessage('third')], { savedAt: later });
    const text = new TextDecoder().decode((await kv.get(id))!.value);
    // Each batch's time marks its first message (Phero's decoder skips the unknown key).
    const [first, second] = conversation(2);
    expect(text).toBe(
      JSON.stringify([marked(first!), second, marked(userMessage('third'), later)]),
    );
    expect((await memory.entries()).map((e) => e.savedAt)).toEqual([T, T, later]);
    const parsed = JSON.parse(text) as unknown[];
    expect(Array.isArray(parsed)).toBe(true);
    expect(parsed).toHaveLength(3);
    for (const element of parsed) expect(element).toMatchObject({ role: expect.any(String) });
  });

  it('switches to the object form for metadata or a snapshot, and back to the array when the metadata is gone', async () => {
    const id = newId();
    const memory = await NatsMemory.open(kv, id, { now });
    await memory.save(conversation(4));
    const four = [marked(conversation(4)[0]!), ...conversation(4).slice(1)];
    await memory.setMeta('title', 'Plan');
    expect(await storedJson(id)).toEqual({
      messages: four,
      saved: 4,
      snapshot: null,
      meta: { title: 'Plan' },
    });
    await memory.setMeta('title', '');
    expect(await storedJson(id)).toEqual(four);

    await memory.saveSnapshot({ summary: 'first two' }, 2, null);
    expect(await storedJson(id)).toMatchObject({
      messages: conversation(4).slice(2),
      saved: 4,
      snapshot: { summary: 'first two', upTo: 2 },
    });
    // Pruned, the first kept message carries its batch's time.
    expect((await storedJson(id)).messages[0]).toEqual(marked(conversation(4)[2]!));
    await memory.clear();
    await memory.save([userMessage('fresh')]);
    expect(await storedJson(id)).toEqual([marked(userMessage('fresh'))]);
  });

  it('loads and lists a value written by Phero itself (every Go field, null lists), and appends keeping it an array', async () => {
    const id = newId();
    const phero = readFileSync(join(fixtures, 'phero-written-session.json'));
    await kv.put(id, phero);
    const memory = await NatsMemory.open(kv, id);
    const loaded = await memory.retrieve();
    expect(loaded).toHaveLength(9);
    expect(loaded.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'assistant',
    ]);
    expect(loaded[1]).toMatchObject({ name: 'bob' });
    expect(loaded[8]!.parts).toEqual([]);
    expect(await backend.inspect(id)).toMatchObject({ id, messages: 9, stored: 9, meta: {} });
    expect((await backend.list({ search: id })).items.map((i) => i.id)).toEqual([id]);

    // Phero's messages have no known save time; ours do.
    expect((await memory.entries()).some((e) => 'savedAt' in e)).toBe(false);
    await memory.save([userMessage('from us')]);
    const after = await storedJson(id);
    expect(Array.isArray(after)).toBe(true);
    expect(after).toHaveLength(10);
    expect(after.slice(0, 9)).toEqual(loaded);
    const times = (await memory.entries()).map((e) => e.savedAt);
    expect(times.slice(0, 9)).toEqual(Array(9).fill(undefined));
    expect(times[9]).toEqual(expect.any(String));
  });

  it('loads a plain array written by Phero, and an object with Go field names', async () => {
    const tools = await NatsMemory.open(kv, newId());
    await kv.put(tools.sessionId, readFileSync(join(fixtures, 'tools.json')));
    const loaded = await tools.retrieve();
    expect(loaded.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    await tools.save([userMessage('and now?')]);
    expect(await storedJson(tools.sessionId)).toHaveLength(6);
    expect((await tools.retrieve()).slice(0, 5)).toEqual(loaded);

    const snap = await NatsMemory.open(kv, newId());
    await kv.put(snap.sessionId, readFileSync(join(fixtures, 'snapshot.json')));
    const state = await snap.loadSnapshot();
    expect(state.snapshot).toMatchObject({ upTo: 4 });
    expect(state.tail.map((e) => e.cursor)).toEqual([5, 6]);
    expect(await snap.meta()).toEqual({ title: 'release plan' });

    const cleared = await NatsMemory.open(kv, newId());
    await kv.put(cleared.sessionId, readFileSync(join(fixtures, 'cleared.json')));
    expect(await cleared.retrieve()).toEqual([]);
    expect(await backend.inspect(cleared.sessionId)).toBeNull();
    await cleared.save([userMessage('again')]);
    expect(await backend.inspect(cleared.sessionId)).toMatchObject({ messages: 1 });
  });

  it('sets updatedAt to the created time of the latest revision', async () => {
    const id = newId();
    await (await backend.open(id)).save(conversation(1));
    const entry = await kv.get(id);
    expect((await backend.inspect(id))!.updatedAt).toBe(entry!.created.toISOString());
  });

  it('reads back the revision it wrote without decoding it again, and any other revision afresh', async () => {
    const id = newId();
    const store = await backend.open(id);
    await store.save(conversation(2));
    const first = await store.retrieve();
    const again = await store.retrieve();
    expect(texts(again)).toEqual(texts(conversation(2)));
    // The same decoded (frozen) messages: the log was not parsed again.
    expect(again[0]).toBe(first[0]);
    // Another writer (Phero's plain array) and an emptied value: read as they are now.
    await kv.put(
      id,
      JSON.stringify([{ role: 'user', parts: [{ type: 'text', text: 'rewritten elsewhere' }] }]),
    );
    expect(texts(await store.retrieve())).toEqual(['rewritten elsewhere']);
    await kv.put(id, '');
    expect(await store.retrieve()).toEqual([]);
    expect(await store.retrieve()).toEqual([]);
    expect(await backend.inspect(id)).toBeNull();
  });

  it('raises CorruptSessionError for a value that does not decode, and never overwrites it', async () => {
    const id = newId();
    const revision = await kv.put(id, '{"messages": [{"role": "robot"}]}');
    const memory = await NatsMemory.open(kv, id);
    await expect(memory.retrieve()).rejects.toThrow(CorruptSessionError);
    await expect(memory.save([userMessage('x')])).rejects.toMatchObject({
      code: 'CORRUPT_SESSION',
      session: id,
    });
    await expect(memory.setMeta('title', 't')).rejects.toThrow(CorruptSessionError);
    await expect(memory.saveSnapshot({ summary: 's' }, 1, null)).rejects.toThrow(
      CorruptSessionError,
    );
    await expect(backend.inspect(id)).rejects.toThrow(CorruptSessionError);
    expect((await backend.list({ search: id })).items).toEqual([]);
    expect((await kv.get(id))!.revision).toBe(revision);

    await kv.put(id, 'not json at all');
    await expect(memory.retrieve()).rejects.toThrow(/not valid JSON/);
    await memory.clear();
    expect(await backend.inspect(id)).toBeNull();
    await memory.save([userMessage('fresh')]);
    expect(texts(await memory.retrieve())).toEqual(['fresh']);
  });

  it("retries a save that lost a race and keeps both writers' messages", async () => {
    const id = newId();
    const memory = await NatsMemory.open(kv, id);
    await memory.save([userMessage('mine-1')]);
    const other = await NatsMemory.open(kv, id);
    await other.save([userMessage('theirs')]);
    await memory.save([userMessage('mine-2')]);
    expect(texts(await memory.retrieve())).toEqual(['mine-1', 'theirs', 'mine-2']);
  });

  it('gives up with ConcurrentUpdateError only once its write budget is spent, storing nothing', async () => {
    const id = newId();
    let rivalWrites = 0;
    const rivalValue = () => JSON.stringify([userMessage(`rival-${++rivalWrites}`)]);
    await kv.put(id, JSON.stringify([userMessage('rival-0')]));
    const memory = await NatsMemory.open(kvWithRival(id, rivalValue), id, { writeBudgetMs: 40 });
    const error = await memory
      .save([userMessage('lost'), assistantMessage('lost too')])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrentUpdateError);
    expect(error).toMatchObject({ session: id, code: 'CONCURRENT_UPDATE' });
    expect(rivalWrites).toBe((error as ConcurrentUpdateError).attempts);
    expect(texts(await (await NatsMemory.open(kv, id)).retrieve())).toEqual([
      `rival-${rivalWrites}`,
    ]);
  });

  it('keeps retrying within the budget: a rival that wins 20 races in a row does not refuse the write', async () => {
    const id = newId();
    let rivalWrites = 0;
    await kv.put(id, JSON.stringify([userMessage('rival-0')]));
    const rival = new Proxy(kv, {
      get(target, prop, receiver) {
        if (prop !== 'get') return Reflect.get(target, prop, receiver);
        return async (k: string) => {
          const entry = await target.get(k);
          // The session's key, not its key copy (read at the same time).
          if (k === id && rivalWrites < 20) {
            await target.put(k, JSON.stringify([userMessage(`rival-${++rivalWrites}`)]));
          }
          return entry;
        };
      },
    });
    const memory = await NatsMemory.open(rival, id);
    await memory.save([userMessage('mine'), assistantMessage('mine too')]);
    expect(rivalWrites).toBe(20);
    expect(texts(await (await NatsMemory.open(kv, id)).retrieve())).toEqual([
      'rival-20',
      'mine',
      'mine too',
    ]);
  });

  it('combines the saves waiting in one process into one compare-and-swap, each caller contiguous and in order', async () => {
    const id = newId();
    const memory = await NatsMemory.open(kv, id);
    await memory.save([userMessage('start')]);
    const before = (await kv.get(id))!.revision;
    const callers = 20;
    await Promise.all(
      Array.from({ length: callers }, (_, c) =>
        memory.save([userMessage(`c${c}-q`), assistantMessage(`c${c}-a`)]),
      ),
    );
    const revisions = (await kv.get(id))!.revision - before;
    expect(revisions).toBeLessThanOrEqual(2);
    const got = texts(await memory.retrieve());
    expect(got).toHaveLength(1 + 2 * callers);
    expect(got.slice(1)).toEqual(
      Array.from({ length: callers }, (_, c) => [`c${c}-q`, `c${c}-a`]).flat(),
    );
  });

  it('combines saves of separate instances open on one session in one process (one queue per session)', async () => {
    const id = newId();
    await (await NatsMemory.open(kv, id)).save([userMessage('start')]);
    const before = (await kv.get(id))!.revision;
    const instances = await Promise.all(Array.from({ length: 10 }, () => backend.open(id)));
    await Promise.all(
      instances.map((memory, c) =>
        memory.save([userMessage(`i${c}-q`), assistantMessage(`i${c}-a`)]),
      ),
    );
    expect((await kv.get(id))!.revision - before).toBeLessThanOrEqual(2);
    const got = texts(await instances[0]!.retrieve());
    expect(got.slice(1)).toEqual(
      Array.from({ length: 10 }, (_, c) => [`i${c}-q`, `i${c}-a`]).flat(),
    );
  });

  it('gives each caller of a combined write its own SaveResult, and replays a key seen earlier in the same batch', async () => {
    const id = newId();
    const memory = await NatsMemory.open(kv, id);
    await memory.save([userMessage('start')]);
    const before = (await kv.get(id))!.revision;
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, c) =>
        memory.save([userMessage(`c${c}-q`), assistantMessage(`c${c}-a`)], {
          idempotencyKey: `turn-${c}`,
        }),
      ),
      memory.save([userMessage('c1-q'), assistantMessage('c1-a')], { idempotencyKey: 'turn-1' }),
    ]);
    // Revisions are stream sequences: the key copy published with each keyed write takes one too.
    expect((await kv.get(id))!.revision - before).toBeLessThanOrEqual(4);
    expect(results.slice(0, 6)).toEqual(
      Array.from({ length: 6 }, (_, c) => ({ first: 2 + 2 * c, last: 3 + 2 * c, replayed: false })),
    );
    expect(results[6]).toEqual({ first: 4, last: 5, replayed: true });
    const entries = (await memory.loadSnapshot()).tail;
    for (const [c, r] of results.slice(0, 6).entries()) {
      const own = entries.filter((e) => e.cursor >= r.first! && e.cursor <= r.last!);
      expect(texts(own.map((e) => e.message))).toEqual([`c${c}-q`, `c${c}-a`]);
    }
    // Keys do not change the stored form: still the plain array Phero reads.
    expect(Array.isArray(await storedJson(id))).toBe(true);
  });

  it("answers each caller of a combined write with its own outcome: one caller's conflict or oversized batch fails alone", async () => {
    const id = newId();
    const memory = await NatsMemory.open(kv, id, { maxPayload: 4096 });
    await memory.save(conversation(4));
    const outcomes = await Promise.allSettled([
      memory.save([userMessage('first')]),
      memory.saveSnapshot({ summary: 'stale' }, 2, {
        summary: 'none',
        upTo: 1,
        createdAt: new Date().toISOString(),
      }),
      memory.save([userMessage('x'.repeat(5000))]),
      memory.save([userMessage('second')]),
      memory.setMeta('title', 'kept'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(SnapshotConflictError);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({
      code: 'SESSION_TOO_LARGE',
      limit: 4096,
    });
    expect(texts(await memory.retrieve()).slice(4)).toEqual(['first', 'second']);
    expect(await memory.meta()).toEqual({ title: 'kept' });
  });

  it('decides a snapshot conflict on the stored state, not on what this instance saw last', async () => {
    const id = newId();
    const mine = await NatsMemory.open(kv, id);
    await mine.save(conversation(6));
    const theirs = await NatsMemory.open(kv, id);
    const { tail } = await theirs.loadSnapshot();
    const their = await theirs.saveSnapshot({ summary: 'theirs' }, tail[1]!.cursor, null);

    await expect(mine.saveSnapshot({ summary: 'stale' }, tail[3]!.cursor, null)).rejects.toThrow(
      SnapshotConflictError,
    );
    const next = await mine.saveSnapshot({ summary: 'mine' }, tail[3]!.cursor, their);
    expect((await theirs.loadSnapshot()).snapshot).toEqual(next);
    expect(await backend.inspect(id)).toMatchObject({
      messages: 6,
      stored: 2,
      snapshotUpTo: tail[3]!.cursor,
    });
  });

  it('exposes what a health indicator needs', async () => {
    const status = await backend.status();
    expect(status).toMatchObject({
      bucket: backend.bucket,
      maxPayload: 1024 * 1024,
      maxValueSize: null,
    });
    expect(status.server).toMatch(/127\.0\.0\.1:\d+/);
    expect(backend.connection.isClosed()).toBe(false);
  });
});
