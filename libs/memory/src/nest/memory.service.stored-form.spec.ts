/**
 * A turn's save never changes a session's stored form: sessions written by `runTurn` (which
 * always saves under an idempotency key) stay the plain JSON array Phero reads, on JSON files and
 * on NATS, with or without a caller's key, through a retry and a restart; a Phero process that
 * rewrites the array keeps the keys working; removing a session removes its keys.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { pheroDecode, pheroRewrite } from '@agent-memory/test-support/phero-form';
import type { MemoryBackend } from '../core/backend.interface';
import { assistantMessage, textContent, userMessage } from '../core/message';
import { jsonFileBackend } from '../jsonfile';
import { simpleBackend } from '../simple';
import { MemoryModule } from './memory.module';
import { MemoryService } from './memory.service';

/** How a test reaches a store's raw data: its backend, and the session as stored. */
interface StoreUnderTest {
  /** A backend over the store's data: a new instance on each call, as after a restart. */
  open(): Promise<MemoryBackend>;
  /** The session as stored, parsed (what Phero reads). */
  raw(id: string): Promise<unknown>;
  /** Replaces the stored session, as a Phero process's save does. */
  rewrite(id: string, value: unknown): Promise<void>;
  /** Whether anything of the session's keys is left beside it. */
  keysLeft(id: string): Promise<boolean>;
  cleanup(): Promise<void>;
}

function jsonFileStore(): StoreUnderTest {
  const dir = mkdtempSync(join(tmpdir(), 'memory-turn-form-'));
  const file = (id: string) => join(dir, `${id}.json`);
  return {
    open: async () => jsonFileBackend({ dir }),
    raw: async (id) => JSON.parse(await readFile(file(id), 'utf8')),
    rewrite: (id, value) => writeFile(file(id), JSON.stringify(value, null, 2)),
    keysLeft: async (id) => existsSync(`${file(id)}.keys`),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function natsStore(): StoreUnderTest {
  const buckets = new TestBuckets('turnform');
  const bucket = buckets.next();
  let probe: NatsBackend | undefined;
  const kv = async () => (probe ??= await natsBackend({ servers: testNatsUrl(), bucket })).kv;
  return {
    open: () => natsBackend({ servers: testNatsUrl(), bucket }),
    raw: async (id) => (await (await kv()).get(id))!.json(),
    rewrite: async (id, value) => void (await (await kv()).put(id, JSON.stringify(value))),
    keysLeft: async (id) => (await (await kv()).get(`_idempotency.${id}`))?.operation === 'PUT',
    async cleanup() {
      await probe?.close();
      await buckets.cleanup();
    },
  };
}

describe.each([
  ['JSON files', jsonFileStore],
  ['NATS', natsStore],
])('runTurn on %s: the stored form', (_name, makeStore) => {
  let store: StoreUnderTest;
  const modules: TestingModule[] = [];

  /** A MemoryService over a new backend instance: each call is a restart. */
  async function start(): Promise<MemoryService> {
    const moduleRef = await Test.createTestingModule({
      imports: [MemoryModule.forRoot({ backend: await store.open() })],
    }).compile();
    modules.push(moduleRef);
    return moduleRef.get(MemoryService);
  }

  const turn = (memory: MemoryService, id: string, q: string, key?: string) =>
    memory.runTurn(
      id,
      userMessage(q),
      async () => ({ answer: q, messages: [assistantMessage(`re: ${q}`)] }),
      key === undefined ? {} : { idempotencyKey: key },
    );

  /** The stored session as Phero decodes it: its texts. Fails as Phero fails on an object. */
  const pheroTexts = async (id: string) =>
    pheroDecode(await store.raw(id)).map((m) =>
      ((m.Parts as Array<{ Text: string }>) ?? []).map((p) => p.Text).join(''),
    );

  beforeEach(() => (store = makeStore()));
  afterEach(async () => {
    for (const moduleRef of modules.splice(0)) await moduleRef.close();
    await store.cleanup();
  });

  it('stays the plain array Phero reads: a turn with its own key, one with a caller key, a retry', async () => {
    const memory = await start();
    const own = await turn(memory, 'form', 'q1');
    expect(own.result).toEqual({ first: 1, last: 2, replayed: false });
    expect(await pheroTexts('form')).toEqual(['q1', 're: q1']);

    const keyed = await turn(memory, 'form', 'q2', 'client-request-2');
    expect(keyed.result).toEqual({ first: 3, last: 4, replayed: false });
    const retry = await turn(memory, 'form', 'q2', 'client-request-2');
    expect(retry.result).toEqual({ first: 3, last: 4, replayed: true });
    expect(await pheroTexts('form')).toEqual(['q1', 're: q1', 'q2', 're: q2']);
    expect(Array.isArray(await store.raw('form'))).toBe(true);
  });

  it('stores a retried turn once after a restart (a new backend instance)', async () => {
    const first = await turn(await start(), 'restart', 'q1', 'turn-1');
    const restarted = await start();
    expect((await turn(restarted, 'restart', 'q1', 'turn-1')).result).toEqual({
      ...first.result,
      replayed: true,
    });
    // The key the first run made up for itself works the same.
    const own = await turn(restarted, 'restart', 'q2');
    expect((await turn(await start(), 'restart', 'q2', own.idempotencyKey)).result).toEqual({
      ...own.result,
      replayed: true,
    });
    expect(await pheroTexts('restart')).toEqual(['q1', 're: q1', 'q2', 're: q2']);
  });

  it('keeps the keys when a Phero process rewrites the array without their marks', async () => {
    const memory = await start();
    const first = await turn(memory, 'rewritten', 'q1', 'turn-1');
    const rewritten = pheroRewrite(await store.raw('rewritten'));
    expect(JSON.stringify(rewritten)).not.toContain('turn-1');
    await store.rewrite('rewritten', [
      ...rewritten,
      ...pheroRewrite([{ role: 'user', parts: [{ type: 'text', text: 'from phero' }] }]),
    ]);

    const restarted = await start();
    expect((await turn(restarted, 'rewritten', 'q1', 'turn-1')).result).toEqual({
      ...first.result,
      replayed: true,
    });
    expect((await turn(restarted, 'rewritten', 'q2', 'turn-2')).result).toEqual({
      first: 4,
      last: 5,
      replayed: false,
    });
    expect(await pheroTexts('rewritten')).toEqual(['q1', 're: q1', 'from phero', 'q2', 're: q2']);
  });

  it('forgets the keys with the session: clear and delete', async () => {
    const memory = await start();
    await turn(memory, 'cleared', 'q1', 'turn-1');
    expect(await store.keysLeft('cleared')).toBe(true);
    await (await memory.session('cleared')).clear();
    expect(await store.keysLeft('cleared')).toBe(false);
    expect((await turn(memory, 'cleared', 'q1', 'turn-1')).result).toEqual({
      first: 1,
      last: 2,
      replayed: false,
    });

    const backend = await store.open();
    await (await backend.open('deleted')).save([userMessage('q')], { idempotencyKey: 'turn-1' });
    expect(await store.keysLeft('deleted')).toBe(true);
    await backend.delete('deleted');
    expect(await store.keysLeft('deleted')).toBe(false);
    await backend.close();
  });
});

describe('runTurn on the in-process store', () => {
  it('stores a retried turn once after the module restarts over the same store', async () => {
    const backend = simpleBackend({ capacity: 100 });
    const modules: TestingModule[] = [];
    const start = async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [MemoryModule.forRoot({ backend })],
      }).compile();
      modules.push(moduleRef);
      return moduleRef.get(MemoryService);
    };
    const fn = async () => ({ answer: 1, messages: [assistantMessage('a')] });
    const first = await (await start()).runTurn('s', userMessage('q'), fn, { idempotencyKey: 'k' });
    const again = await (await start()).runTurn('s', userMessage('q'), fn, { idempotencyKey: 'k' });
    expect(again.result).toEqual({ ...first.result, replayed: true });
    const stored = await (await backend.open('s')).retrieve();
    expect(stored.map(textContent)).toEqual(['q', 'a']);
    for (const moduleRef of modules) await moduleRef.close();
  });
});
