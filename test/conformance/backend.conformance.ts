/**
 * The behaviour every backend promises (SPEC §2–4), as one suite. Each backend's spec file plugs in
 * a factory: `describeBackendConformance('postgres', { create, reopen })`.
 */
import {
  assistantMessage,
  InvalidCursorError,
  InvalidMessageError,
  InvalidSessionIdError,
  SnapshotConflictError,
  SUMMARY_PREFIX,
  summaryMessages,
  toolResultMessage,
  userMessage,
  type MemoryBackend,
  type Message,
  type SessionStore,
} from '@agent-memory/memory';
import { conversation, everyShapeMessages, texts } from './fixtures';

export interface ConformanceHarness {
  /** A fresh backend over storage no other test uses. */
  create(opts?: { pruneCompacted?: boolean }): Promise<MemoryBackend>;
  /**
   * A second backend over the same storage as `backend`, as another replica would open it
   * (its own connection or file handle). Omit for in-process stores.
   */
  reopen?(backend: MemoryBackend, opts?: { pruneCompacted?: boolean }): Promise<MemoryBackend>;
  /** The backend's default for `pruneCompacted` (true for NATS). */
  prunesByDefault?: boolean;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

export function describeBackendConformance(name: string, harness: ConformanceHarness): void {
  describe(`${name} backend conformance`, () => {
    const opened: MemoryBackend[] = [];
    let sessionCounter = 0;

    async function backend(opts?: { pruneCompacted?: boolean }): Promise<MemoryBackend> {
      const created = await harness.create(opts);
      opened.push(created);
      return created;
    }
    async function replica(
      of: MemoryBackend,
      opts?: { pruneCompacted?: boolean },
    ): Promise<MemoryBackend> {
      if (!harness.reopen) return of;
      const second = await harness.reopen(of, opts);
      opened.push(second);
      return second;
    }
    const newId = () => `conf-${process.pid}-${Date.now().toString(36)}-${++sessionCounter}`;
    async function session(opts?: {
      pruneCompacted?: boolean;
    }): Promise<{ b: MemoryBackend; id: string; s: SessionStore }> {
      const b = await backend(opts);
      const id = newId();
      return { b, id, s: await b.open(id) };
    }

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((b) => b.close()));
    });

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
        const again = await s.save([userMessage('a different batch')], {
          idempotencyKey: 'turn-1',
        });
        expect(again).toEqual({ ...stored, replayed: true });
        expect(texts(await s.retrieve())).toEqual(['u0', 'a1']);
        expect(await b.inspect(id)).toMatchObject({ messages: 2, stored: 2 });
        expect(await s.save([], { idempotencyKey: 'turn-1' })).toEqual(again);
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
        ).save(conversation(1), {
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
            (i % 2 ? s : other).save([userMessage(`try ${i}`), assistantMessage('r')], {
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
          const again = await s.save([userMessage('dup')], { idempotencyKey: `key-${i}` });
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
        [
          'a NUL in a tool result id',
          [toolResultMessage('c\u0000', 'r')],
          'messages[0].toolCallId',
        ],
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

    describe('snapshots', () => {
      it('starts with no snapshot and every entry in the tail, cursors strictly increasing', async () => {
        const { s } = await session();
        expect(await s.loadSnapshot()).toEqual({ snapshot: null, tail: [] });
        await s.save(conversation(4));
        const { snapshot, tail } = await s.loadSnapshot();
        expect(snapshot).toBeNull();
        expect(texts(tail.map((e) => e.message))).toEqual(['u0', 'a1', 'u2', 'a3']);
        for (let i = 1; i < tail.length; i++)
          expect(tail[i]!.cursor).toBeGreaterThan(tail[i - 1]!.cursor);
      });

      it('retrieves the summary as a user message, then the pinned messages, then the tail', async () => {
        const { s } = await session();
        await s.save(conversation(6));
        const { tail } = await s.loadSnapshot();
        const task = userMessage('the task');
        const stored = await s.saveSnapshot(
          { summary: 'they talked', pinned: [task] },
          tail[3]!.cursor,
          null,
        );
        expect(stored).toMatchObject({
          summary: 'they talked',
          pinned: [task],
          upTo: tail[3]!.cursor,
        });
        expect(new Date(stored.createdAt).toISOString()).toBe(stored.createdAt);
        const context = await s.retrieve();
        expect(context).toEqual([...summaryMessages(stored), ...conversation(2, 4)]);
        expect(context[0]).toEqual(userMessage(SUMMARY_PREFIX + 'they talked'));
        const state = await s.loadSnapshot();
        expect(state.snapshot).toEqual(stored);
        expect(state.tail.map((e) => e.cursor)).toEqual([tail[4]!.cursor, tail[5]!.cursor]);
      });

      it('keeps cursors stable while a second writer appends and snapshots prune', async () => {
        const { b, id, s } = await session({ pruneCompacted: true });
        await s.save(conversation(4));
        const before = (await s.loadSnapshot()).tail;
        const other = await (await replica(b, { pruneCompacted: true })).open(id);
        await other.save(conversation(2, 4));
        await other.saveSnapshot({ summary: 's1' }, before[1]!.cursor, null);
        const after = (await s.loadSnapshot()).tail;
        expect(after.slice(0, 2)).toEqual(before.slice(2));
        expect(texts(after.map((e) => e.message))).toEqual(['u2', 'a3', 'u4', 'a5']);
      });

      it('refuses a snapshot based on a stale prev with SnapshotConflictError', async () => {
        const { s } = await session();
        await s.save(conversation(6));
        const { tail } = await s.loadSnapshot();
        const first = await s.saveSnapshot({ summary: 'one' }, tail[1]!.cursor, null);
        await expect(s.saveSnapshot({ summary: 'two' }, tail[3]!.cursor, null)).rejects.toThrow(
          SnapshotConflictError,
        );
        const second = await s.saveSnapshot({ summary: 'two' }, tail[3]!.cursor, first);
        await expect(
          s.saveSnapshot({ summary: 'three' }, tail[5]!.cursor, first),
        ).rejects.toMatchObject({
          code: 'SNAPSHOT_CONFLICT',
        });
        expect((await s.loadSnapshot()).snapshot).toEqual(second);
      });

      it('refuses a prev when there is no snapshot yet', async () => {
        const { s } = await session();
        await s.save(conversation(2));
        const { tail } = await s.loadSnapshot();
        const phantom = {
          summary: 'x',
          upTo: tail[0]!.cursor,
          createdAt: new Date().toISOString(),
        };
        await expect(s.saveSnapshot({ summary: 'y' }, tail[1]!.cursor, phantom)).rejects.toThrow(
          SnapshotConflictError,
        );
      });

      it('refuses cursors that do not move past prev or lie beyond the last message', async () => {
        const { s } = await session();
        await expect(s.saveSnapshot({ summary: 'x' }, 1, null)).rejects.toThrow(InvalidCursorError);
        await s.save(conversation(4));
        const { tail } = await s.loadSnapshot();
        const last = tail[3]!.cursor;
        await expect(s.saveSnapshot({ summary: 'x' }, last + 1, null)).rejects.toMatchObject({
          code: 'INVALID_CURSOR',
        });
        const first = await s.saveSnapshot({ summary: 'x' }, tail[1]!.cursor, null);
        await expect(s.saveSnapshot({ summary: 'y' }, tail[1]!.cursor, first)).rejects.toThrow(
          InvalidCursorError,
        );
        await expect(s.saveSnapshot({ summary: 'y' }, tail[0]!.cursor, first)).rejects.toThrow(
          InvalidCursorError,
        );
        expect((await s.loadSnapshot()).snapshot).toEqual(first);
      });

      it('lets exactly one of two racing snapshots with the same prev win', async () => {
        const { b, id, s } = await session();
        await s.save(conversation(6));
        const other = await (await replica(b)).open(id);
        const { tail } = await s.loadSnapshot();
        const results = await Promise.allSettled([
          s.saveSnapshot({ summary: 'mine' }, tail[2]!.cursor, null),
          other.saveSnapshot({ summary: 'theirs' }, tail[3]!.cursor, null),
        ]);
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(SnapshotConflictError);
        expect((await s.loadSnapshot()).snapshot).toEqual(
          (won[0] as PromiseFulfilledResult<unknown>).value,
        );
      });

      it(`${harness.prunesByDefault ? 'drops' : 'keeps'} covered messages by default`, async () => {
        const { b, id, s } = await session();
        await s.save(conversation(5));
        const { tail } = await s.loadSnapshot();
        await s.saveSnapshot({ summary: 's' }, tail[2]!.cursor, null);
        const info = await b.inspect(id);
        expect(info).toMatchObject({
          messages: 5,
          stored: harness.prunesByDefault ? 2 : 5,
          hasSnapshot: true,
          snapshotUpTo: tail[2]!.cursor,
        });
      });

      it.each([true, false])(
        'with pruneCompacted %s, stores what it should and always returns the same context',
        async (prune) => {
          const { b, id, s } = await session({ pruneCompacted: prune });
          await s.save(conversation(5));
          const { tail } = await s.loadSnapshot();
          await s.saveSnapshot({ summary: 's' }, tail[2]!.cursor, null);
          expect(await b.inspect(id)).toMatchObject({ messages: 5, stored: prune ? 2 : 5 });
          expect(texts((await s.loadSnapshot()).tail.map((e) => e.message))).toEqual(['a3', 'u4']);
          expect(texts(await s.retrieve()).slice(1)).toEqual(['a3', 'u4']);
        },
      );

      it('validates pinned messages', async () => {
        const { s } = await session();
        await s.save(conversation(2));
        const { tail } = await s.loadSnapshot();
        const pinned = [
          { role: 'user', parts: [{ type: 'text', text: 1 }] },
        ] as unknown as Message[];
        await expect(
          s.saveSnapshot({ summary: 's', pinned }, tail[0]!.cursor, null),
        ).rejects.toThrow(InvalidMessageError);
        expect((await s.loadSnapshot()).snapshot).toBeNull();
      });
    });

    describe('the stored log', () => {
      it('lists kept entries oldest first, covered ones included, paged by cursor', async () => {
        const { s } = await session({ pruneCompacted: false });
        await s.save(conversation(5));
        const { tail } = await s.loadSnapshot();
        await s.saveSnapshot({ summary: 's' }, tail[2]!.cursor, null);
        const all = await s.entries();
        expect(all).toEqual(tail);
        const firstPage = await s.entries({ limit: 2 });
        expect(firstPage).toEqual(tail.slice(0, 2));
        expect(await s.entries({ after: firstPage[1]!.cursor, limit: 2 })).toEqual(
          tail.slice(2, 4),
        );
        expect(await s.entries({ after: tail[4]!.cursor })).toEqual([]);
      });

      it('lists only what is kept once a snapshot prunes', async () => {
        const { s } = await session({ pruneCompacted: true });
        await s.save(conversation(4));
        const { tail } = await s.loadSnapshot();
        await s.saveSnapshot({ summary: 's' }, tail[1]!.cursor, null);
        expect(await s.entries()).toEqual(tail.slice(2));
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

    describe('clear and metadata', () => {
      it('round-trips metadata and removes a key set to ""', async () => {
        const { b, id, s } = await session();
        await s.setMeta('title', 'Fix the failing test');
        await s.setMeta('owner', 'ops');
        await s.setMeta('owner', '');
        expect(await s.meta()).toEqual({ title: 'Fix the failing test' });
        expect(await (await (await replica(b)).open(id)).meta()).toEqual({
          title: 'Fix the failing test',
        });
      });

      it('clear removes messages, snapshot and metadata: the session is as if new', async () => {
        const { b, id, s } = await session();
        await s.save(conversation(4));
        const { tail } = await s.loadSnapshot();
        await s.saveSnapshot({ summary: 's' }, tail[1]!.cursor, null);
        await s.setMeta('title', 't');
        await s.clear();
        expect(await s.retrieve()).toEqual([]);
        expect(await s.loadSnapshot()).toEqual({ snapshot: null, tail: [] });
        expect(await s.meta()).toEqual({});
        expect(await b.inspect(id)).toBeNull();
        await s.save(conversation(1));
        expect(await b.inspect(id)).toMatchObject({ messages: 1, stored: 1, hasSnapshot: false });
        expect(texts(await s.retrieve())).toEqual(['u0']);
      });

      it('moves updatedAt on every kind of write', async () => {
        const { b, id, s } = await session();
        await s.save(conversation(2));
        const t1 = (await b.inspect(id))!.updatedAt;
        await tick();
        await s.setMeta('title', 't');
        const t2 = (await b.inspect(id))!.updatedAt;
        await tick();
        const { tail } = await s.loadSnapshot();
        await s.saveSnapshot({ summary: 's' }, tail[0]!.cursor, null);
        const t3 = (await b.inspect(id))!.updatedAt;
        expect(t1 < t2 && t2 < t3).toBe(true);
      });
    });

    describe('the backend port', () => {
      it('inspects a session: counts, snapshot, metadata; null when unknown', async () => {
        const { b, id, s } = await session();
        expect(await b.inspect(`${id}-none`)).toBeNull();
        await s.save(conversation(3));
        await s.setMeta('title', 'hello');
        const info = await b.inspect(id);
        expect(info).toEqual({
          id,
          messages: 3,
          stored: 3,
          updatedAt: expect.any(String),
          hasSnapshot: false,
          snapshotUpTo: null,
          meta: { title: 'hello' },
        });
        expect(new Date(info!.updatedAt).toISOString()).toBe(info!.updatedAt);
      });

      it('lists newest first through pages, searching id and title, including metadata-only sessions', async () => {
        const b = await backend();
        const prefix = newId();
        const ids: string[] = [];
        for (let i = 0; i < 7; i++) {
          const id = `${prefix}-${i}`;
          ids.push(id);
          const s = await b.open(id);
          if (i === 3) await s.setMeta('title', 'Deploy the Widget');
          else await s.save([userMessage(`m${i}`)]);
          await tick();
        }
        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        do {
          const page = await b.list({ limit: 3, after, search: prefix });
          expect(page.items.length).toBeLessThanOrEqual(3);
          seen.push(...page.items.map((i) => i.id));
          after = page.next ?? undefined;
          pages++;
        } while (after && pages < 10);
        expect(seen).toEqual([...ids].reverse());
        expect(pages).toBe(3);

        const byTitle = await b.list({ search: 'widget' });
        expect(byTitle.items.map((i) => i.id)).toEqual([`${prefix}-3`]);
        expect(byTitle.next).toBeNull();
        expect(
          (await b.list({ search: `${prefix}-6`.toUpperCase() })).items.map((i) => i.id),
        ).toEqual([`${prefix}-6`]);
      });

      it('deletes a session', async () => {
        const { b, id, s } = await session();
        await s.save(conversation(2));
        await b.delete(id);
        expect(await b.inspect(id)).toBeNull();
        expect(await (await b.open(id)).retrieve()).toEqual([]);
      });

      it.each([
        '',
        '../x',
        'a/b',
        'a'.repeat(129),
        'nul\u0000byte',
        '.hidden',
        'a..b',
        'a b',
        'x.',
      ])('refuses the session id %j before any I/O', async (bad) => {
        const b = await backend();
        await expect(b.open(bad)).rejects.toThrow(InvalidSessionIdError);
        await expect(b.inspect(bad)).rejects.toMatchObject({ code: 'INVALID_SESSION_ID' });
        await expect(b.delete(bad)).rejects.toThrow(InvalidSessionIdError);
      });

      it('accepts dotted ids of up to 128 characters', async () => {
        const b = await backend();
        for (const id of ['a', 'tenant-1.user_2.chat=3', 'x'.repeat(128)]) {
          const s = await b.open(id);
          await s.save([userMessage(id)]);
          expect((await b.inspect(id))?.messages).toBe(1);
          await b.delete(id);
        }
      });

      it('is reachable', async () => {
        const b = await backend();
        await expect(b.check()).resolves.toBeUndefined();
      });
    });
  });
}
