/**
 * Saving and retrieving messages: order, validation, concurrent writers, save results and
 * idempotency keys, tool results (docs/architecture.md#idempotent-saves).
 */
import {
  assistantMessage,
  InvalidMessageError,
  MAX_PROVIDER_DATA_BYTES,
  toolResultMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { conversation, everyShapeMessages, texts } from '../fixtures';
import type { ConformanceContext } from '../suite-context';

export function describeSaveRetrieveConformance(ctx: ConformanceContext): void {
  const { describe, it, expect } = ctx.t;
  const { session, replica } = ctx;
  describe('messages', () => {
    it('retrieves saved messages in order, across batches', async () => {
      const { s } = await session();
      await s.save(conversation(3));
      await s.save(conversation(2, 3));
      await s.save([]);
      expect(texts(await s.retrieve())).toEqual(['u0', 'a1', 'u2', 'a3', 'u4']);
    });

    it('round-trips every part of the message model, read back by another opener', async () => {
      const { b, id, s } = await session();
      const messages = everyShapeMessages();
      await s.save(messages);
      const again = await (await replica(b)).open(id);
      expect(await again.retrieve()).toEqual(messages);
    });

    it('keeps providerData on messages and parts as it was given, read back by another opener', async () => {
      const { b, id, s } = await session();
      const reasoning: Message = {
        role: 'assistant',
        parts: [
          {
            type: 'reasoning',
            text: 'thinking',
            providerData: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAA+/==' } },
          },
          { type: 'text', text: 'done' },
        ],
        providerData: {
          type: 'reasoning',
          id: 'rs_1',
          encrypted_content: 'x'.repeat(4096),
          summary: [{ type: 'summary_text', text: 'é 漢字 🙂' }],
          nested: { list: [1, 2.5, -3e-7, true, false, null, ''], empty: {}, none: [] },
        },
      };
      await s.save([userMessage('q'), reasoning]);
      const again = await (await replica(b)).open(id);
      const [, back] = await again.retrieve();
      expect(back).toEqual(reasoning);
    });

    it('refuses providerData that is too large or not storable JSON, writing nothing', async () => {
      const { b, id, s } = await session();
      const tooBig = { blob: 'x'.repeat(MAX_PROVIDER_DATA_BYTES) };
      const withData = (providerData: unknown): Message[] => [
        userMessage('fine'),
        { ...userMessage('bad'), providerData } as Message,
      ];
      await expect(s.save(withData(tooBig))).rejects.toMatchObject({
        code: 'INVALID_MESSAGE',
        path: 'messages[1].providerData',
        reason: expect.stringContaining('MAX_PROVIDER_DATA_BYTES'),
      });
      await expect(s.save(withData({ a: { b: 'nul\u0000' } }))).rejects.toMatchObject({
        path: 'messages[1].providerData.a.b',
      });
      await expect(s.save(withData({ n: Number.NaN }))).rejects.toMatchObject({
        path: 'messages[1].providerData.n',
      });
      await expect(s.save(withData(['not', 'an', 'object']))).rejects.toMatchObject({
        path: 'messages[1].providerData',
      });
      expect(await s.retrieve()).toEqual([]);
      expect((await b.inspect(id))?.messages ?? 0).toBe(0);
    });

    it('refuses an invalid message naming its path, and writes nothing of the batch', async () => {
      const { b, id, s } = await session();
      await s.save([userMessage('kept')]);
      const bad = [
        userMessage('fine'),
        { role: 'user', parts: [{ type: 'video' }] },
      ] as unknown as Message[];
      await expect(s.save(bad)).rejects.toThrow(InvalidMessageError);
      await expect(s.save(bad)).rejects.toMatchObject({ path: 'messages[1].parts[0].type' });
      await expect(
        s.save([{ role: 'robot', parts: [] } as unknown as Message]),
      ).rejects.toMatchObject({
        code: 'INVALID_MESSAGE',
        path: 'messages[0].role',
      });
      expect(texts(await s.retrieve())).toEqual(['kept']);
      expect((await b.inspect(id))?.messages).toBe(1);
    });

    it('keeps 20 concurrent saves, each batch contiguous', async () => {
      const { s } = await session();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.save([userMessage(`q${i}`), assistantMessage(`r${i}`)]),
        ),
      );
      const got = texts(await s.retrieve());
      expect(got).toHaveLength(40);
      for (let i = 0; i < got.length; i += 2) expect(got[i + 1]).toBe(`r${got[i]!.slice(1)}`);
      expect(new Set(got.filter((t) => t.startsWith('q'))).size).toBe(20);
    });

    it('keeps concurrent saves from two openers of one session', async () => {
      const { b, id, s } = await session();
      const other = await (await replica(b)).open(id);
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? s : other).save([userMessage(`q${i}`), assistantMessage(`r${i}`)]),
        ),
      );
      const got = texts(await s.retrieve());
      expect(got).toHaveLength(20);
      for (let i = 0; i < got.length; i += 2) expect(got[i + 1]).toBe(`r${got[i]!.slice(1)}`);
    });

    it('honours an aborted signal before writing', async () => {
      const { s } = await session();
      const controller = new AbortController();
      controller.abort();
      await expect(s.save([userMessage('x')], { signal: controller.signal })).rejects.toThrow();
      expect(await s.retrieve()).toEqual([]);
    });
  });

  describe('save results and idempotency keys', () => {
    it('resolves with the cursors of the batch it stored; null ones for an empty batch', async () => {
      const { s } = await session();
      const first = await s.save(conversation(2));
      expect(first).toEqual({
        first: expect.any(Number),
        last: first.first! + 1,
        replayed: false,
      });
      const second = await s.save(conversation(1, 2));
      expect(second.first).toBe(second.last);
      expect(second.first!).toBeGreaterThan(first.last!);
      expect(await s.save([])).toEqual({ first: null, last: null, replayed: false });
      expect((await s.entries()).map((e) => e.cursor)).toEqual([
        first.first,
        first.last,
        second.first,
      ]);
    });

    it('stores nothing for a key already seen and resolves with the first result, replayed', async () => {
      const { b, id, s } = await session();
      const stored = await s.save(conversation(2), { idempotencyKey: 'turn-1' });
      const again = await s.save(conversation(2), { idempotencyKey: 'turn-1' });
      expect(again).toEqual({ ...stored, replayed: true });
      expect(texts(await s.retrieve())).toEqual(['u0', 'a1']);
      expect(await b.inspect(id)).toMatchObject({ messages: 2, stored: 2 });
      expect(await s.save([], { idempotencyKey: 'turn-1' })).toEqual(again);
    });

    it('refuses a key already seen with other messages (IDEMPOTENCY_KEY_REUSED), storing nothing', async () => {
      const { b, id, s } = await session();
      const stored = await s.save(conversation(2), { idempotencyKey: 'turn-1' });
      await s.setMeta('title', 't');
      for (const other of [
        [userMessage('a different batch')],
        conversation(1),
        conversation(3),
        [assistantMessage('u0'), userMessage('a1')],
      ]) {
        await expect(s.save(other, { idempotencyKey: 'turn-1' })).rejects.toMatchObject({
          code: 'IDEMPOTENCY_KEY_REUSED',
          session: id,
          idempotencyKey: 'turn-1',
        });
      }
      // Also for another opener and after a reopen, and racing within one write turn.
      const reopened = await (await replica(b)).open(id);
      const outcomes = await Promise.allSettled([
        reopened.save([userMessage('other')], { idempotencyKey: 'turn-1' }),
        s.save([userMessage('new')], { idempotencyKey: 'turn-2' }),
        s.save([userMessage('newer')], { idempotencyKey: 'turn-2' }),
      ]);
      expect(outcomes[0]).toMatchObject({
        status: 'rejected',
        reason: { code: 'IDEMPOTENCY_KEY_REUSED' },
      });
      const racing = outcomes.slice(1);
      const winner = racing.findIndex((o) => o.status === 'fulfilled');
      expect(racing[1 - winner]).toMatchObject({
        status: 'rejected',
        reason: { code: 'IDEMPOTENCY_KEY_REUSED' },
      });
      expect(texts(await s.retrieve())).toEqual(['u0', 'a1', ['new', 'newer'][winner]]);
      expect(await b.inspect(id)).toMatchObject({ messages: 3 });
      expect(await reopened.save(conversation(2), { idempotencyKey: 'turn-1' })).toEqual({
        ...stored,
        replayed: true,
      });
    });

    it('stores a save with a different key, and one without a key', async () => {
      const { s } = await session();
      await s.save(conversation(1), { idempotencyKey: 'k1' });
      const other = await s.save(conversation(1, 1), { idempotencyKey: 'k2' });
      expect(other.replayed).toBe(false);
      await s.save(conversation(1, 2));
      await s.save(conversation(1, 2));
      expect(texts(await s.retrieve())).toEqual(['u0', 'a1', 'u2', 'u2']);
      expect(await s.save([], { idempotencyKey: 'unseen' })).toEqual({
        first: null,
        last: null,
        replayed: false,
      });
    });

    it('replays a key for another opener, after a reopen, a snapshot and metadata', async () => {
      const { b, id, s } = await session();
      const stored = await s.save(conversation(4), { idempotencyKey: 'k' });
      await s.setMeta('title', 't');
      await s.saveSnapshot({ summary: 's' }, stored.first! + 1, null);
      const again = await (
        await (await replica(b)).open(id)
      ).save(conversation(4), {
        idempotencyKey: 'k',
      });
      expect(again).toEqual({ ...stored, replayed: true });
      expect((await b.inspect(id))?.messages).toBe(4);
    });

    it('lets exactly one of 10 racing saves with one key store, from two openers', async () => {
      const { b, id, s } = await session();
      const other = await (await replica(b)).open(id);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? s : other).save([userMessage('try'), assistantMessage('r')], {
            idempotencyKey: 'same',
          }),
        ),
      );
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      const winner = results.find((r) => !r.replayed)!;
      for (const r of results)
        expect({ first: r.first, last: r.last }).toEqual({
          first: winner.first,
          last: winner.last,
        });
      expect(await s.retrieve()).toHaveLength(2);
    });

    it('remembers at least the last 100 keys of a session', async () => {
      const { b, id, s } = await session();
      const firsts: (number | null)[] = [];
      for (let i = 0; i < 100; i++) {
        firsts.push((await s.save([userMessage(`m${i}`)], { idempotencyKey: `key-${i}` })).first);
      }
      for (let i = 0; i < 100; i++) {
        const again = await s.save([userMessage(`m${i}`)], { idempotencyKey: `key-${i}` });
        expect(again).toEqual({ first: firsts[i], last: firsts[i], replayed: true });
      }
      expect((await b.inspect(id))?.messages).toBe(100);
    }, 60_000);

    it('forgets its keys on clear', async () => {
      const { s } = await session();
      await s.save(conversation(2), { idempotencyKey: 'k' });
      await s.clear();
      const after = await s.save(conversation(1), { idempotencyKey: 'k' });
      expect(after.replayed).toBe(false);
      expect(texts(await s.retrieve())).toEqual(['u0']);
    });

    it('validates the batch and the key before looking the key up', async () => {
      const { b, id, s } = await session();
      await s.save(conversation(1), { idempotencyKey: 'k' });
      const bad = [{ role: 'robot', parts: [] }] as unknown as Message[];
      await expect(s.save(bad, { idempotencyKey: 'k' })).rejects.toMatchObject({
        code: 'INVALID_MESSAGE',
        path: 'messages[0].role',
      });
      for (const key of ['', 'has space', 'x'.repeat(256), 'nul\u0000', 'é']) {
        await expect(s.save(conversation(1), { idempotencyKey: key })).rejects.toMatchObject({
          code: 'INVALID_IDEMPOTENCY_KEY',
        });
      }
      expect((await b.inspect(id))?.messages).toBe(1);
    });
  });

  describe('tool results', () => {
    const call = assistantMessage('', [
      { id: 'c1', type: 'function', function: { name: 'look', arguments: '{}' } },
    ]);
    const result = toolResultMessage('c1', 'seen');

    it('never returns a tool result whose call a snapshot covers, but keeps it in the tail', async () => {
      const { s } = await session();
      await s.save([userMessage('go'), call, result, assistantMessage('done')]);
      const { tail } = await s.loadSnapshot();
      await s.saveSnapshot({ summary: 's' }, tail[1]!.cursor, null);
      const context = await s.retrieve();
      expect(context.some((m) => m.role === 'tool')).toBe(false);
      expect(texts(context.slice(1))).toEqual(['done']);
      expect((await s.loadSnapshot()).tail.map((e) => e.message.role)).toEqual([
        'tool',
        'assistant',
      ]);
    });

    it('returns a tool result together with its call', async () => {
      const { s } = await session();
      await s.save([userMessage('go'), call, result]);
      expect((await s.retrieve()).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    });
  });
}
