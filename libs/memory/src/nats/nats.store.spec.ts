import {
  ConcurrentUpdateError,
  CorruptSessionError,
  InvalidSessionIdError,
  SnapshotConflictError,
  assistantMessage,
  userMessage,
} from '@agent-memory/memory';
import { NatsMemory, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KV } from 'nats';
import { conversation, texts } from '../../../../test/conformance/fixtures';
import { TestBuckets } from '../../../../test/support/nats';
import { testNatsUrl } from '../../../../test/support/services';

const buckets = new TestBuckets('store');
const fixtures = join(__dirname, '../../../../test/fixtures/phero');
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

  it('stores one key per session, named by the id, holding the JSON envelope', async () => {
    const id = newId();
    const memory = await NatsMemory.open(kv, id);
    await memory.save(conversation(2));
    expect(await storedJson(id)).toEqual({
      messages: conversation(2),
      saved: 2,
      snapshot: null,
      meta: {},
    });
  });

  it('loads a plain array written by Phero, and an object with Go field names', async () => {
    const tools = await NatsMemory.open(kv, newId());
    await kv.put(tools.sessionId, readFileSync(join(fixtures, 'tools.json')));
    const loaded = await tools.retrieve();
    expect(loaded.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    await tools.save([userMessage('and now?')]);
    expect(await storedJson(tools.sessionId)).toMatchObject({ saved: 6, snapshot: null });
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

  it('gives up with ConcurrentUpdateError after 5 lost races, storing nothing', async () => {
    const id = newId();
    let rivalWrites = 0;
    const rivalValue = () => JSON.stringify([userMessage(`rival-${++rivalWrites}`)]);
    await kv.put(id, JSON.stringify([userMessage('rival-0')]));
    const memory = await NatsMemory.open(kvWithRival(id, rivalValue), id);
    const error = await memory
      .save([userMessage('lost'), assistantMessage('lost too')])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrentUpdateError);
    expect(error).toMatchObject({ session: id, attempts: 5 });
    expect(rivalWrites).toBe(5);
    expect(texts(await (await NatsMemory.open(kv, id)).retrieve())).toEqual(['rival-5']);
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
