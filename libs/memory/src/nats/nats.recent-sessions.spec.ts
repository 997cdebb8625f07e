import { assistantMessage, userMessage } from '@agent-memory/memory';
import type { StoreObserver } from '@agent-memory/memory/observability';
import { NatsMemory, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import type { KV } from 'nats';
import { texts } from '@agent-memory/conformance';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { RecentSessions } from './recent-sessions';

const buckets = new TestBuckets('recent');
let backend: NatsBackend;
let other: NatsBackend;

beforeAll(async () => {
  const bucket = buckets.next();
  backend = await natsBackend({ servers: testNatsUrl(), bucket });
  // Another process's view of the same bucket: a connection and KV handle of its own.
  other = await natsBackend({ servers: testNatsUrl(), bucket });
});
afterAll(async () => {
  await other.close();
  await backend.close();
  await buckets.cleanup();
});

/** The backend's KV handle, counting the reads of keys made through it. */
function countingReads(kv: KV): { kv: KV; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (property === 'get') {
        return (...args: Parameters<KV['get']>) => {
          reads++;
          return target.get(...args);
        };
      }
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  return { kv: counted, reads: () => reads };
}

describe('NATS stores opened per call', () => {
  it('write on what the last store of the session knew, without reading the key again', async () => {
    const { kv, reads } = countingReads(backend.kv);
    const retries: number[] = [];
    const observer: StoreObserver = { casRetry: (_kind, n) => retries.push(n ?? 1) };
    for (let i = 0; i < 5; i++) {
      const memory = await NatsMemory.open(kv, 'per-call', { observer });
      await memory.save([userMessage(`q${i}`), assistantMessage(`a${i}`)], {
        idempotencyKey: `turn-${i}`,
      });
    }
    // The first save read the new key once; the next four wrote on what it knew.
    expect(reads()).toBe(1);
    expect(retries).toEqual([]);
    expect(texts(await (await backend.open('per-call')).retrieve())).toHaveLength(10);
  });

  it('read the key again when another process wrote since, keeping both writes', async () => {
    const { kv } = countingReads(backend.kv);
    const retries: number[] = [];
    const observer: StoreObserver = { casRetry: (_kind, n) => retries.push(n ?? 1) };
    await (await NatsMemory.open(kv, 'stale', { observer })).save([userMessage('mine 1')]);
    await (await other.open('stale')).save([userMessage('theirs')]);
    const saved = await (
      await NatsMemory.open(kv, 'stale', { observer })
    ).save([userMessage('mine 2')], { idempotencyKey: 'k' });
    expect(saved.replayed).toBe(false);
    expect(retries).toEqual([1]);
    expect(texts(await (await other.open('stale')).retrieve())).toEqual([
      'mine 1',
      'theirs',
      'mine 2',
    ]);
  });

  it('forget a session this process cleared', async () => {
    const { kv, reads } = countingReads(backend.kv);
    await (await NatsMemory.open(kv, 'cleared')).save([userMessage('before')]);
    await (await NatsMemory.open(kv, 'cleared')).clear();
    const before = reads();
    await (await NatsMemory.open(kv, 'cleared')).save([userMessage('after')]);
    expect(reads()).toBe(before + 1);
    expect(texts(await (await backend.open('cleared')).retrieve())).toEqual(['after']);
  });
});

describe('RecentSessions', () => {
  const known = (revision: number) => ({ revision, doc: {} as never });

  it('keeps at most its count of sessions and its bytes, the least recently kept out first', () => {
    const recent = new RecentSessions(2, 100);
    recent.keep('a', known(1), 10);
    recent.keep('b', known(2), 10);
    recent.keep('c', known(3), 10);
    expect([recent.known('a'), recent.known('b')?.revision, recent.known('c')?.revision]).toEqual([
      null,
      2,
      3,
    ]);
    recent.keep('d', known(4), 95);
    expect(recent.size).toBe(1);
    expect(recent.known('d')?.revision).toBe(4);
    recent.keep('huge', known(5), 101);
    expect(recent.known('huge')).toBeNull();
    recent.keep('d', null, 0);
    expect(recent.size).toBe(0);
  });
});
