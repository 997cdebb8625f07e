/**
 * The deprecated `summarization` option of the stores
 * (docs/architecture.md#choices-where-the-contract-is-silent), as one suite each store plugs into:
 * `describeLegacySummarizationConformance('postgres', { backends: postgresHarness(), … })`.
 * Once the kept view holds `threshold` messages, a save replaces its oldest `size` by an LLM
 * summary (a system message), stored as the session's snapshot; no lock is held while the LLM
 * answers, so what is written meanwhile is never lost. The LLM is a real local HTTP server
 * (`test/support/fake-llm.server.ts`); the policy's size rules alone are
 * core/legacy-summarization.spec.ts's.
 */
import { types } from 'node:util';
import {
  OpenAiCompatibleClient,
  SnapshotsUnsupportedError,
  SUMMARY_PREFIX,
  systemMessage,
  userMessage,
  type MemoryBackend,
  type Message,
  type SessionStore,
  type SummarizationOptions,
} from '@agent-memory/memory';
import {
  conversation,
  useConformanceBackends,
  type ConformanceBackendOptions,
  type MemoryBackendInitializer,
} from '@agent-memory/conformance';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.server';
import type { BackendOptions } from './backends';

/** What the suite needs from a store. */
export interface LegacySummarizationHarness {
  /**
   * Fresh storage for each test: `create({ summarization })` opens a backend with the option,
   * its `openStorage` a plain writer of the same sessions (another replica or process).
   */
  backends: MemoryBackendInitializer;
  /** The class `open` returns with the option set: the store itself, no wrapper around it. */
  storeClass: { readonly prototype: SessionStore };
  /**
   * Whether another writer can write the same sessions while the store waits for the LLM. False
   * for the in-process store (its only writer is itself): the "another writer" cases skip there.
   */
  secondWriter: boolean;
  /** The texts the storage holds for `id`, read past the store (PostgreSQL: its rows, by SQL). */
  storedTexts?(backend: MemoryBackend, id: string): Promise<string[]>;
}

/** How a session is cleared and written again while a summary of its old messages is pending. */
const RESTARTS = [
  { how: 'restarts it with one message', refill: [userMessage('fresh')] },
  // Cursors restart after a clear: the refill takes the cursors the summary was planned on.
  {
    how: 'refills it on the cursors the summary was planned on',
    refill: [userMessage('n0'), userMessage('n1'), userMessage('n2')],
  },
];

const summaryMessage = (summary: string): Message => systemMessage(SUMMARY_PREFIX + summary);

export function describeLegacySummarizationConformance(
  name: string,
  harness: LegacySummarizationHarness,
): void {
  describe(`${name} with the deprecated summarization option`, () => {
    const ctx = useConformanceBackends(harness.backends, { idPrefix: 'legacy' });
    let llm: FakeLlm;
    /** What the option's `onError` was told in this test. */
    let errors: unknown[];

    // One LLM per test: its requests are the test's own and nothing a failed test queued is left.
    beforeEach(async () => {
      llm = await startFakeLlm();
      errors = [];
    });
    afterEach(() => llm.close());

    /** A fresh backend with the option (the local LLM, failures into `errors`) and a session. */
    function summarizingSession(threshold = 4, size = 2) {
      const summarization: SummarizationOptions = {
        llm: new OpenAiCompatibleClient({
          baseUrl: llm.baseUrl,
          apiKey: 'test-key',
          model: 'test',
          timeoutMs: 10_000,
        }),
        threshold,
        size,
        onError: (error) => errors.push(error),
      };
      const options: BackendOptions = { summarization };
      return ctx.session(options as ConformanceBackendOptions);
    }

    /** Session `id` as another writer of `b`'s storage opens it, without the option. */
    async function plainWriter(b: MemoryBackend, id: string): Promise<SessionStore> {
      const replica = await ctx.replica(b);
      if (replica === b) throw new Error(`the ${name} harness has no second writer to open`);
      return replica.open(id);
    }

    /** The transcript the store sent in the LLM's request number `n` (its last message). */
    const transcriptSent = (n: number) => llm.requests[n]!.body.messages.at(-1)!.content;

    /**
     * Starts `s.save(messages)` and resolves once its summary request reached the LLM, which
     * holds the answer `summary` until `finish()` (that then waits for the save).
     */
    async function saveWhileLlmHolds(s: SessionStore, messages: Message[], summary: string) {
      const held = llm.holdNext(summary);
      const asked = llm.requests.length + 1;
      const saving = s.save(messages);
      await llm.waitForRequests(asked);
      return {
        async finish() {
          held.release();
          await saving;
        },
      };
    }

    /**
     * `writer` clears the session and saves `refill` while the store's summary of `u0, a1` is
     * pending: the summary is dropped (not an error) and the refill kept as it is.
     */
    async function expectSummaryDroppedAfterClear(
      writer: (b: MemoryBackend, id: string, s: SessionStore) => Promise<SessionStore>,
      refill: Message[],
    ): Promise<void> {
      const { b, id, s } = await summarizingSession();
      const other = await writer(b, id, s);
      await s.save(conversation(3));
      const pending = await saveWhileLlmHolds(s, conversation(1, 3), 'stale');
      await other.clear();
      await other.save(refill);
      await pending.finish();
      expect(llm.requests).toHaveLength(1);
      expect(await s.retrieve()).toEqual(refill);
      expect((await s.loadSnapshot()).snapshot).toBeNull();
      expect(errors).toEqual([]);
    }

    describe('summarising', () => {
      it('replaces the oldest `size` messages by one summary system message once `threshold` are kept', async () => {
        const { b, id, s } = await summarizingSession();
        await s.save(conversation(3));
        expect(llm.requests).toHaveLength(0);
        const before = (await s.loadSnapshot()).tail;

        llm.reply('they said hello');
        await s.save(conversation(1, 3));
        expect(llm.requests).toHaveLength(1);
        // The summarised messages alone, as a transcript.
        expect(transcriptSent(0)).toBe('user: u0\nassistant: a1');
        expect(JSON.stringify(llm.requests[0]!.body.messages)).not.toContain('u2');
        expect(await s.retrieve()).toEqual([
          summaryMessage('they said hello'),
          ...conversation(2, 2),
        ]);

        // The summary is a snapshot up to the last summarised message; what it covers is pruned.
        const { snapshot, tail } = await s.loadSnapshot();
        expect(snapshot).toMatchObject({ summary: 'they said hello', upTo: before[1]!.cursor });
        expect(tail.map((e) => e.cursor)).toEqual([before[2]!.cursor, before[2]!.cursor + 1]);
        expect(await b.inspect(id)).toMatchObject({
          messages: 4,
          stored: 2,
          hasSnapshot: true,
          snapshotUpTo: before[1]!.cursor,
        });
        if (harness.storedTexts) expect(await harness.storedTexts(b, id)).toEqual(['u2', 'a3']);
      });

      it('summarises the previous summary again with the next oldest messages', async () => {
        const { s } = await summarizingSession();
        llm.reply('summary 1');
        llm.reply('summary 2');
        await s.save(conversation(4));
        await s.save(conversation(2, 4));
        expect(llm.requests).toHaveLength(2);
        expect(transcriptSent(1)).toBe(`system: ${SUMMARY_PREFIX}summary 1\nuser: u2`);
        expect(await s.retrieve()).toEqual([summaryMessage('summary 2'), ...conversation(3, 3)]);
      });

      it.each([
        { threshold: 2, size: 1 },
        { threshold: 4, size: 2 },
      ])(
        'keeps every message and reports the error when the LLM fails; the next save tries again (threshold $threshold, size $size)',
        async ({ threshold, size }) => {
          const { s } = await summarizingSession(threshold, size);
          llm.failNext(503, 'overloaded');
          await s.save(conversation(threshold));
          expect(errors).toHaveLength(1);
          expect(String(errors[0])).toMatch(/HTTP 503: overloaded/);
          expect(await s.retrieve()).toEqual(conversation(threshold));

          llm.reply('second try');
          await s.save(conversation(1, threshold));
          expect(llm.requests).toHaveLength(2);
          expect(await s.retrieve()).toEqual([
            summaryMessage('second try'),
            ...conversation(threshold + 1 - size, size),
          ]);
        },
      );

      it('refuses snapshots with SnapshotsUnsupportedError, before and after it summarised', async () => {
        const { s } = await summarizingSession();
        await s.save(conversation(2));
        const { tail } = await s.loadSnapshot();
        await expect(s.saveSnapshot({ summary: 's' }, tail[0]!.cursor, null)).rejects.toThrow(
          SnapshotsUnsupportedError,
        );
        // Refused before anything reached the LLM.
        expect(llm.requests).toHaveLength(0);

        await s.save(conversation(2, 2));
        const summarised = await s.loadSnapshot();
        expect(summarised.snapshot).not.toBeNull();
        const last = summarised.tail.at(-1)!.cursor;
        for (const prev of [null, summarised.snapshot]) {
          await expect(s.saveSnapshot({ summary: 'x' }, last, prev)).rejects.toThrow(
            SnapshotsUnsupportedError,
          );
        }
      });

      it('opens the store itself, no proxy around it', async () => {
        const { s } = await summarizingSession();
        expect(s).toBeInstanceOf(harness.storeClass);
        expect(types.isProxy(s)).toBe(false);
      });
    });

    describe('the store itself writes while the LLM answers', () => {
      it('keeps what it saved; the summary planned before that save is dropped', async () => {
        const { b, id, s } = await summarizingSession();
        await s.save(conversation(3));
        const pending = await saveWhileLlmHolds(s, conversation(1, 3), 'late');
        // This save plans on the same oldest messages, gets its answer first and stores it.
        llm.reply('first');
        await s.save([userMessage('meanwhile')]);
        await pending.finish();
        expect(await s.retrieve()).toEqual([
          summaryMessage('first'),
          ...conversation(2, 2),
          userMessage('meanwhile'),
        ]);
        expect(await b.inspect(id)).toMatchObject({ messages: 5, stored: 3 });
        // The held answer covers messages that snapshot already took: nothing written, no error.
        expect(errors).toEqual([]);
      });

      it.each(RESTARTS)(
        'drops the pending summary when it clears the session and $how',
        ({ refill }) => expectSummaryDroppedAfterClear(async (_b, _id, s) => s, refill),
      );
    });

    // Another replica or process writing the same session. Skipped, by name, where there is none.
    const another = harness.secondWriter
      ? { title: 'another writer writes while the LLM answers', it }
      : { title: `another writer: skipped, the ${name} store has no second writer`, it: it.skip };
    describe(another.title, () => {
      another.it('keeps what the other writer saved: no lock is held meanwhile', async () => {
        const { b, id, s } = await summarizingSession();
        const other = await plainWriter(b, id);
        await s.save(conversation(3));
        const before = (await s.loadSnapshot()).tail;
        const pending = await saveWhileLlmHolds(s, conversation(1, 3), 'early part');
        // Would wait for the end of the LLM call if the store held a lock (or row lock) over it.
        await other.save([userMessage('meanwhile')]);
        await pending.finish();
        expect(llm.requests).toHaveLength(1);
        expect(await s.retrieve()).toEqual([
          summaryMessage('early part'),
          ...conversation(2, 2),
          userMessage('meanwhile'),
        ]);
        expect(await b.inspect(id)).toMatchObject({
          messages: 5,
          stored: 3,
          hasSnapshot: true,
          snapshotUpTo: before[1]!.cursor,
        });
      });

      another.it.each(RESTARTS)(
        'drops the pending summary when the other writer clears the session and $how',
        ({ refill }) => expectSummaryDroppedAfterClear(plainWriter, refill),
      );
    });
  });
}
