import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { connect } from 'nats';
import { natsBackend } from '@agent-memory/memory/nats';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';
import {
  CorruptSessionError,
  InvalidMessageError,
  SessionSaveFailedError,
  SessionTooLargeError,
} from '../core/errors';
import {
  assistantMessage,
  textContent,
  toolResultMessage,
  userMessage,
  type Message,
} from '../core/message';
import { jsonFileBackend } from '../jsonfile';
import type { MemoryBackend } from '../core/backend.interface';
import { MemoryModule } from './memory.module';
import { MemoryService } from './memory.service';

const call = (id: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'lookup', arguments: '{}' },
});

describe('MemoryService.runTurn', () => {
  let dir: string;
  let moduleRef: TestingModule;
  let memory: MemoryService;
  const buckets = new TestBuckets('turn');

  async function build(backend: MemoryBackend): Promise<MemoryService> {
    moduleRef = await Test.createTestingModule({
      imports: [MemoryModule.forRoot({ backend })],
    }).compile();
    return moduleRef.get(MemoryService);
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-turn-'));
    memory = await build(jsonFileBackend({ dir }));
  });
  afterEach(async () => {
    await moduleRef.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterAll(() => buckets.cleanup());

  const stored = async (id: string): Promise<Message[]> => (await memory.session(id)).retrieve();

  it('hands the function the history and saves only the turn’s new messages', async () => {
    const first = await memory.runTurn(
      't.save',
      userMessage('what is 2+2?'),
      async ({ history, input }) => {
        expect(history).toEqual([]);
        expect(input).toEqual([userMessage('what is 2+2?')]);
        return { answer: 4, messages: [assistantMessage('4')] };
      },
    );
    expect(first.answer).toBe(4);
    expect(first.saveError).toBeUndefined();
    const second = await memory.runTurn(
      't.save',
      [userMessage('and 3+3?')],
      async ({ history }) => {
        expect(history.map(textContent)).toEqual(['what is 2+2?', '4']);
        return { answer: 'six', messages: [assistantMessage('6')] };
      },
    );
    expect(second.saved).toEqual([userMessage('and 3+3?'), assistantMessage('6')]);
    expect((await stored('t.save')).map(textContent)).toEqual([
      'what is 2+2?',
      '4',
      'and 3+3?',
      '6',
    ]);
  });

  it('saves what was recorded when the function returns no messages', async () => {
    await memory.runTurn('t.record', userMessage('look it up'), async ({ record }) => {
      record(assistantMessage('', [call('c1')]), toolResultMessage('c1', 'found'));
      record(assistantMessage('here it is'));
      return { answer: null };
    });
    expect(await stored('t.record')).toEqual([
      userMessage('look it up'),
      assistantMessage('', [call('c1')]),
      toolResultMessage('c1', 'found'),
      assistantMessage('here it is'),
    ]);
  });

  it('saves the input and the recorded messages when the function throws, then rethrows', async () => {
    const failure = new Error('model is down');
    await expect(
      memory.runTurn('t.throw', userMessage('q'), async ({ record }) => {
        record(assistantMessage('', [call('a')]), toolResultMessage('a', 'ok'));
        record(assistantMessage('', [call('b'), call('c')]), toolResultMessage('b', 'half'));
        throw failure;
      }),
    ).rejects.toBe(failure);
    // The second tool call never got all its results: it (and its partial result) is left out.
    expect(await stored('t.throw')).toEqual([
      userMessage('q'),
      assistantMessage('', [call('a')]),
      toolResultMessage('a', 'ok'),
    ]);
  });

  it('saves the turn when it is aborted', async () => {
    const controller = new AbortController();
    const turn = memory.runTurn(
      't.abort',
      userMessage('write a long essay'),
      ({ record, signal }) =>
        new Promise<never>((_, reject) => {
          record(assistantMessage('Once upon a'));
          signal!.addEventListener('abort', () => reject(signal!.reason), { once: true });
          controller.abort(new Error('user pressed stop'));
        }),
      { signal: controller.signal },
    );
    await expect(turn).rejects.toThrow('user pressed stop');
    expect(await stored('t.abort')).toEqual([
      userMessage('write a long essay'),
      assistantMessage('Once upon a'),
    ]);
  });

  it('refuses invalid input before running anything', async () => {
    let ran = false;
    await expect(
      memory.runTurn(
        't.invalid',
        { role: 'user', parts: [{ type: 'nope' }] } as unknown as Message,
        async () => {
          ran = true;
          return { answer: 1 };
        },
      ),
    ).rejects.toThrow(InvalidMessageError);
    expect(ran).toBe(false);
  });

  it('returns the answer with a SessionSaveFailedError when the session file is corrupt', async () => {
    await memory.runTurn('t.corrupt', userMessage('hello'), async () => ({
      answer: 1,
      messages: [assistantMessage('hi')],
    }));
    const result = await memory.runTurn('t.corrupt', userMessage('again'), async () => {
      writeFileSync(join(dir, 't.corrupt.json'), '{ not json');
      return { answer: 'still here', messages: [assistantMessage('hi again')] };
    });
    expect(result.answer).toBe('still here');
    expect(result.saveError).toBeInstanceOf(SessionSaveFailedError);
    expect(result.saveError!.code).toBe('SESSION_SAVE_FAILED');
    expect(result.saveError!.cause).toBeInstanceOf(CorruptSessionError);
    expect(result.compaction).toBeNull();
  });

  it('saves each turn under one idempotency key, so a retried turn or save stores nothing twice', async () => {
    const turn = async () => ({ answer: 'hi', messages: [assistantMessage('hi')] });
    const first = await memory.runTurn('t.key', userMessage('hello'), turn, {
      idempotencyKey: 'request-1',
    });
    expect(first.idempotencyKey).toBe('request-1');
    expect(first.result).toEqual({ first: 1, last: 2, replayed: false });
    const retried = await memory.runTurn('t.key', userMessage('hello'), turn, {
      idempotencyKey: 'request-1',
    });
    expect(retried.result).toEqual({ first: 1, last: 2, replayed: true });
    expect((await stored('t.key')).map(textContent)).toEqual(['hello', 'hi']);

    const fresh = await memory.runTurn('t.key', userMessage('again'), turn);
    expect(fresh.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.idempotencyKey).not.toBe('request-1');
    const store = await memory.session('t.key');
    // Saving the turn again with its key (as after a saveError) stores nothing.
    expect(await store.save(fresh.saved, { idempotencyKey: fresh.idempotencyKey })).toEqual({
      ...fresh.result,
      replayed: true,
    });
    expect(await stored('t.key')).toHaveLength(4);
  });

  it('refuses a malformed idempotency key before running anything', async () => {
    let ran = false;
    const turn = async () => {
      ran = true;
      return { answer: 1 };
    };
    await expect(
      memory.runTurn('t.badkey', userMessage('x'), turn, { idempotencyKey: 'two words' }),
    ).rejects.toMatchObject({ code: 'INVALID_IDEMPOTENCY_KEY' });
    expect(ran).toBe(false);
  });

  it('returns the answer with a SessionSaveFailedError when NATS refuses a too-large session', async () => {
    await moduleRef.close();
    const bucket = buckets.next();
    const nc = await connect({ servers: testNatsUrl() });
    await (await nc.jetstream().views.kv(bucket, { history: 1, maxValueSize: 2048 })).status();
    await nc.close();
    memory = await build(await natsBackend({ servers: testNatsUrl(), bucket }));
    const result = await memory.runTurn('t.big', userMessage('tell me everything'), async () => ({
      answer: 'x'.repeat(5000),
      messages: [assistantMessage('x'.repeat(5000))],
    }));
    expect(result.answer).toHaveLength(5000);
    expect(result.saveError).toBeInstanceOf(SessionSaveFailedError);
    expect(result.saveError!.cause).toBeInstanceOf(SessionTooLargeError);
    expect(await stored('t.big')).toEqual([]);
  });
});
