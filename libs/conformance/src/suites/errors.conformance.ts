/**
 * Input no store can keep: the error each refusal raises, naming what was wrong, and that nothing
 * is written (docs/architecture.md#input-rules-and-errors-that-say-what-happened).
 */
import {
  assistantMessage,
  InvalidSessionIdError,
  toolResultMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { conversation, texts } from '../fixtures';
import type { ConformanceContext } from '../suite-context';

export function describeErrorConformance(ctx: ConformanceContext): void {
  const { describe, it, expect } = ctx.t;
  const { session, backend, replica } = ctx;
  describe('input no store can keep', () => {
    const call = (id: string, args: string) => ({
      id,
      type: 'function' as const,
      function: { name: 'lookup', arguments: args },
    });
    it.each([
      ['a NUL in text', [userMessage('a\u0000b')], 'messages[0].parts[0].text'],
      ['a lone high surrogate in text', [userMessage('x\uD800')], 'messages[0].parts[0].text'],
      [
        'a lone low surrogate in tool arguments',
        [userMessage('q'), assistantMessage('', [call('c1', '{"a":"\uDC00"}')])],
        'messages[1].toolCalls[0].function.arguments',
      ],
      [
        'a NUL in a tool call id',
        [assistantMessage('', [call('c\u0000', '{}')])],
        'messages[0].toolCalls[0].id',
      ],
      ['a NUL in a tool result id', [toolResultMessage('c\u0000', 'r')], 'messages[0].toolCallId'],
      [
        'a lone surrogate in a name',
        [{ ...userMessage('hi'), name: 'bob\uDBFF' }],
        'messages[0].name',
      ],
    ])(
      'refuses %s with InvalidMessageError naming the path, storing nothing',
      async (_, batch, path) => {
        const { b, id, s } = await session();
        await s.save([userMessage('kept')]);
        await expect(s.save(batch as Message[])).rejects.toMatchObject({
          code: 'INVALID_MESSAGE',
          path,
        });
        expect(texts(await s.retrieve())).toEqual(['kept']);
        expect((await b.inspect(id))?.messages).toBe(1);
      },
    );

    it('keeps well-formed surrogate pairs (emoji, rare scripts) as they are', async () => {
      const { b, id, s } = await session();
      const text = 'ok 😀 𝒜 — 東京';
      await s.save([userMessage(text)]);
      expect(texts(await (await (await replica(b)).open(id)).retrieve())).toEqual([text]);
    });

    it('refuses a summary with a NUL, storing no snapshot', async () => {
      const { s } = await session();
      await s.save(conversation(2));
      const { tail } = await s.loadSnapshot();
      await expect(
        s.saveSnapshot({ summary: 'bad\u0000' }, tail[0]!.cursor, null),
      ).rejects.toMatchObject({ code: 'INVALID_MESSAGE', path: 'snapshot.summary' });
      expect((await s.loadSnapshot()).snapshot).toBeNull();
    });

    it.each(['__proto__', 'constructor', 'prototype', 'a\u0000', 'x\uD800'])(
      'refuses the metadata key %j with INVALID_META, changing nothing',
      async (key) => {
        const { b, id, s } = await session();
        await s.setMeta('title', 't');
        await expect(s.setMeta(key, 'v')).rejects.toMatchObject({ code: 'INVALID_META' });
        expect(await s.meta()).toEqual({ title: 't' });
        expect((await b.inspect(id))?.meta).toEqual({ title: 't' });
      },
    );

    it('refuses a metadata value with a NUL or a lone surrogate', async () => {
      const { s } = await session();
      for (const value of ['a\u0000', '\uDC00x']) {
        await expect(s.setMeta('title', value)).rejects.toMatchObject({
          code: 'INVALID_META',
          key: 'title',
        });
      }
      expect(await s.meta()).toEqual({});
    });

    it('refuses a list token it did not make, or a bad search, as INVALID_QUERY', async () => {
      const b = await backend();
      const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const after of [
        'garbage',
        forge(['not a time', 'x']),
        forge(['2026-02-30T00:00:00.000Z', 'x']),
        forge(['2026-01-01T00:00:00.000Z', "x'; drop table x; --"]),
        forge(['2026-01-01T00:00:00.000Z\u0000', 'x']),
      ]) {
        await expect(b.list({ after })).rejects.toMatchObject({
          code: 'INVALID_QUERY',
          field: 'after',
        });
      }
      await expect(b.list({ search: 'a\u0000' })).rejects.toMatchObject({
        code: 'INVALID_QUERY',
        field: 'search',
      });
      await expect(b.list({ limit: 0 })).rejects.toMatchObject({
        code: 'INVALID_QUERY',
        field: 'limit',
      });
    });
  });

  describe('session ids', () => {
    it.each(['', '../x', 'a/b', 'a'.repeat(129), 'nul\u0000byte', '.hidden', 'a..b', 'a b', 'x.'])(
      'refuses the session id %j before any I/O',
      async (bad) => {
        const b = await backend();
        await expect(b.open(bad)).rejects.toThrow(InvalidSessionIdError);
        await expect(b.inspect(bad)).rejects.toMatchObject({ code: 'INVALID_SESSION_ID' });
        await expect(b.delete(bad)).rejects.toThrow(InvalidSessionIdError);
      },
    );
  });
}
