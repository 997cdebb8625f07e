import { userMessage } from '@agent-memory/memory';
import { natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { connect, type JetStreamClient, type NatsConnection } from 'nats';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { listNatsSessions } from './nats-session.list';

const buckets = new TestBuckets('list');
let nc: NatsConnection;
let counter = 0;
const prefix = () => `list-${process.pid}-${++counter}`;

beforeAll(async () => {
  nc = await connect({ servers: testNatsUrl() });
});
afterAll(async () => {
  await nc.close();
  await buckets.cleanup();
});

async function freshBackend(): Promise<NatsBackend> {
  return natsBackend({ connection: nc, bucket: buckets.next() });
}

/** `count` sessions `<p>-0`…, each with one message, written in that order. */
async function seed(backend: NatsBackend, p: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${p}-${i}`);
  for (const id of ids) {
    await (await backend.open(id)).save([userMessage(id)]);
    // Each session a millisecond of its own: a listing's time is to the millisecond, and sessions
    // saved within one are ordered by id, not by which came last.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return ids;
}

/** A JetStream client that counts the messages its subscriptions deliver. */
function countingJs(js: JetStreamClient, counted: { messages: number }): JetStreamClient {
  return new Proxy(js, {
    get(target, prop, receiver) {
      if (prop !== 'subscribe') return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<JetStreamClient['subscribe']>) => {
        const sub = await target.subscribe(...args);
        const iterate = sub[Symbol.asyncIterator].bind(sub);
        return Object.assign(sub, {
          [Symbol.asyncIterator]: async function* () {
            for await (const msg of { [Symbol.asyncIterator]: iterate }) {
              counted.messages++;
              yield msg;
            }
          },
        });
      };
    },
  });
}

async function listAll(backend: NatsBackend, limit: number, search?: string): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  do {
    const page = await backend.list({ limit, after, search });
    ids.push(...page.items.map((i) => i.id));
    after = page.next ?? undefined;
  } while (after);
  return ids;
}

describe('NATS session list', () => {
  it('pages through every session newest first, each once', async () => {
    const backend = await freshBackend();
    const ids = await seed(backend, prefix(), 23);
    expect(await listAll(backend, 5)).toEqual([...ids].reverse());
    const page = await backend.list({ limit: 23 });
    expect(page.next).toBeNull();
    const times = page.items.map((i) => i.updatedAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('reads only about a page of values for the newest page, not every session', async () => {
    const backend = await freshBackend();
    const ids = await seed(backend, prefix(), 300);
    const counted = { messages: 0 };
    const page = await listNatsSessions(
      {
        kv: backend.kv,
        js: countingJs(nc.jetstream(), counted),
        jsm: await nc.jetstreamManager(),
        bucket: backend.bucket,
        timeoutMs: 5000,
      },
      { limit: 10 },
    );
    expect(page.items.map((i) => i.id)).toEqual(ids.slice(-10).reverse());
    expect(counted.messages).toBeGreaterThanOrEqual(11);
    expect(counted.messages).toBeLessThanOrEqual(30);
  });

  it('keeps its page tokens valid while sessions are written: nothing repeated, nothing older skipped', async () => {
    const backend = await freshBackend();
    const p = prefix();
    const ids = await seed(backend, p, 12);
    const first = await backend.list({ limit: 4 });
    expect(first.items.map((i) => i.id)).toEqual(ids.slice(8).reverse());
    // A session on the first page and one not yet listed are written, and a new one appears.
    await (await backend.open(ids[10]!)).save([userMessage('again')]);
    await (await backend.open(ids[2]!)).save([userMessage('again')]);
    await (await backend.open(`${p}-new`)).save([userMessage('new')]);
    const rest: string[] = [];
    let after = first.next ?? undefined;
    while (after) {
      const page = await backend.list({ limit: 4, after });
      rest.push(...page.items.map((i) => i.id));
      after = page.next ?? undefined;
    }
    expect(rest).toEqual([7, 6, 5, 4, 3, 1, 0].map((i) => ids[i]));
    expect((await backend.list({ limit: 3 })).items.map((i) => i.id)).toEqual([
      `${p}-new`,
      ids[2],
      ids[10],
    ]);
  });

  it('finds older sessions behind thousands of revisions of one busy session', async () => {
    const backend = await freshBackend();
    const ids = await seed(backend, prefix(), 5);
    const busyId = `${prefix()}-busy`;
    const busy = await backend.open(busyId);
    for (let i = 0; i < 400; i++) await busy.save([userMessage(`b${i}`)]);
    const page = await backend.list({ limit: 4 });
    expect(page.items.map((i) => i.id)).toEqual([busyId, ...ids.slice(2).reverse()]);
    expect(await listAll(backend, 4)).toEqual([busyId, ...[...ids].reverse()]);
  });

  it('leaves out deleted sessions, lists metadata-only ones, and searches by title', async () => {
    const backend = await freshBackend();
    const ids = await seed(backend, prefix(), 6);
    await backend.delete(ids[4]!);
    const metaOnly = `${prefix()}-meta`;
    await (await backend.open(metaOnly)).setMeta('title', 'Quarterly Report');
    expect(await listAll(backend, 2)).toEqual([metaOnly, ids[5], ids[3], ids[2], ids[1], ids[0]]);
    expect(await listAll(backend, 2, 'quarterly')).toEqual([metaOnly]);
    expect(await listAll(backend, 1, `${ids[1]}`)).toEqual([ids[1]]);
  });

  it('lists each session once, at its latest revision, in a bucket that keeps history', async () => {
    const bucket = buckets.next();
    await nc.jetstream().views.kv(bucket, { history: 5 });
    const backend = await natsBackend({ connection: nc, bucket });
    const ids = await seed(backend, prefix(), 4);
    await (await backend.open(ids[1]!)).save([userMessage('later')]);
    await (await backend.open(ids[3]!)).setMeta('title', 'x');
    const page = await backend.list({ limit: 10 });
    expect(page.items.map((i) => i.id)).toEqual([ids[3], ids[1], ids[2], ids[0]]);
    expect(page.items[1]).toMatchObject({ messages: 2 });
    expect(await listAll(backend, 1)).toEqual([ids[3], ids[1], ids[2], ids[0]]);
  });

  it('refuses a token no list made, and honours a keyset token of the core form', async () => {
    const backend = await freshBackend();
    const ids = await seed(backend, prefix(), 5);
    await expect(backend.list({ after: 'nonsense' })).rejects.toThrow(/page token/);
    const forged = Buffer.from(JSON.stringify(['nats', -1])).toString('base64url');
    await expect(backend.list({ after: forged })).rejects.toThrow(/page token/);
    const third = (await backend.inspect(ids[2]!))!;
    const keyset = Buffer.from(JSON.stringify([third.updatedAt, third.id])).toString('base64url');
    const page = await backend.list({ after: keyset });
    expect(page.items.map((i) => i.id)).toEqual([ids[1], ids[0]].filter((id) => id !== undefined));
  });
});
