/**
 * Idempotency keys and the NATS value's forms: a keyed session stays the array (its keys marked on
 * the messages, copied to `_idempotency.<id>`), and a value an earlier version made an object for
 * its keys alone becomes the array again with its keys kept.
 */
import { assistantMessage, userMessage } from '@agent-memory/memory';
import { NatsMemory, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import type { KV } from 'nats';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { pheroRewrite } from '@agent-memory/test-support/phero-form';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { batchDigest } from '../core/idempotency';
import { IDEMPOTENCY_KEY_MARK } from '../core/idempotency-marks';

const buckets = new TestBuckets('keysform');
let backend: NatsBackend;
let kv: KV;
let counter = 0;
const newId = () => `keys-${process.pid}-${++counter}`;
const turn = [userMessage('q'), assistantMessage('a')];
const stored = async (key: string) => (await kv.get(key))!.json<unknown>();

beforeAll(async () => {
  backend = await natsBackend({ servers: testNatsUrl(), bucket: buckets.next() });
  kv = backend.kv;
});
afterAll(async () => {
  await backend.close();
  await buckets.cleanup();
});

describe('NatsMemory: idempotency keys and the stored form', () => {
  it('keeps a keyed session the array, the key marked on its batch and copied under _idempotency.<id>', async () => {
    const id = newId();
    await (await NatsMemory.open(kv, id)).save(turn, { idempotencyKey: 'turn-1' });
    const value = (await stored(id)) as Array<Record<string, unknown>>;
    expect(Array.isArray(value)).toBe(true);
    expect(value[0]![IDEMPOTENCY_KEY_MARK]).toEqual({
      key: 'turn-1',
      count: 2,
      digest: batchDigest(turn),
    });
    expect(await stored(`_idempotency.${id}`)).toEqual([
      { key: 'turn-1', first: 1, last: 2, digest: batchDigest(turn) },
    ]);
    // The copy is no session: lists skip it.
    expect((await backend.list({})).items.map((item) => item.id)).not.toContain(
      `_idempotency.${id}`,
    );
  });

  it('makes an object an earlier version wrote for its keys the array again, keeping the keys through a Phero rewrite', async () => {
    const id = newId();
    await kv.put(
      id,
      JSON.stringify({
        messages: turn,
        snapshot: null,
        meta: {},
        saved: 2,
        idempotencyKeys: [{ key: 'turn-1', first: 1, last: 2, digest: batchDigest(turn) }],
      }),
    );
    const memory = await NatsMemory.open(kv, id);
    await memory.save([userMessage('next')]);
    expect(Array.isArray(await stored(id))).toBe(true);
    await kv.put(id, JSON.stringify(pheroRewrite(await stored(id))));
    const again = await NatsMemory.open(kv, id);
    expect(await again.save(turn, { idempotencyKey: 'turn-1' })).toEqual({
      first: 1,
      last: 2,
      replayed: true,
    });
    expect((await again.entries()).map((e) => e.cursor)).toEqual([1, 2, 3]);
  });
});
