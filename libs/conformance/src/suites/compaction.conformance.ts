/**
 * Compaction against a real backend (docs/architecture.md#compaction), as one suite each backend
 * plugs into: `describeCompactionConformance('postgres', postgresHarness())`. The LLM is a real
 * local HTTP server (`test/support/fake-llm.server.ts`).
 */
import {
  assistantMessage,
  ExtractiveSummarizer,
  LlmSummarizer,
  OpenAiCompatibleClient,
  SUMMARY_PREFIX,
  SummaryCompactor,
  textContent,
  toolResultMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.server';
import type { ConformanceContext } from '../suite-context';
import { conversation, texts } from '../fixtures';

export function describeCompactionConformance(ctx: ConformanceContext): void {
  const { describe, it, expect, beforeAll, afterAll } = ctx.t;
  const { session, replica, itPruning } = ctx;
  describe('compaction', () => {
    let llm: FakeLlm;

    beforeAll(async () => {
      llm = await startFakeLlm();
    });
    afterAll(() => llm.close());

    const llmCompactor = (keepRecent: number) =>
      new SummaryCompactor(
        new LlmSummarizer(
          new OpenAiCompatibleClient({
            baseUrl: llm.baseUrl,
            apiKey: 'test-key',
            model: 'summariser',
          }),
        ),
        {
          keepRecent,
        },
      );

    /** The session's task, then `turns` user/assistant pairs of ~40 tokens each. */
    function longConversation(turns: number): Message[] {
      const filler = 'and this sentence pads the message with a few more ordinary tokens';
      return [
        userMessage('TASK: plan the data migration'),
        ...Array.from({ length: turns }, (_, i) => [
          userMessage(`question ${i} ${filler}`),
          assistantMessage(`answer ${i} ${filler}`),
        ]).flat(),
      ];
    }

    it('does nothing below the threshold', async () => {
      const { s } = await session();
      await s.save(longConversation(3));
      const result = await new SummaryCompactor(new ExtractiveSummarizer(), {
        keepRecent: 2,
      }).compact(s, { thresholdTokens: 100_000 });
      expect(result).toMatchObject({ compacted: false, reason: 'below-threshold' });
      expect(result.tokensAfter).toBe(result.tokensBefore);
      expect((await s.loadSnapshot()).snapshot).toBeNull();
    });

    it('covers all but the last keepRecent messages, pins the task, and shrinks the context', async () => {
      const { s } = await session();
      await s.save(longConversation(10));
      llm.reply('SUMMARY-ONE');
      const result = await llmCompactor(4).compact(s, { thresholdTokens: 200 });
      expect(result.compacted).toBe(true);
      expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
      const context = await s.retrieve();
      expect(textContent(context[0]!)).toBe(`${SUMMARY_PREFIX}SUMMARY-ONE`);
      expect(texts([context[1]!])).toEqual(['TASK: plan the data migration']);
      expect(context).toHaveLength(2 + 4);
      expect((await s.loadSnapshot()).snapshot?.upTo).toBe(result.upTo);
    });

    it('never splits a tool call from its results', async () => {
      const { s } = await session();
      const call = assistantMessage('', [
        { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
      ]);
      await s.save([
        ...longConversation(4),
        call,
        toolResultMessage('c1', 'r1'),
        assistantMessage('done'),
      ]);
      // keepRecent 2 would keep [tool result, done]: the call must move to the kept side with it.
      const result = await new SummaryCompactor(new ExtractiveSummarizer(), {
        keepRecent: 2,
      }).compact(s, { thresholdTokens: 1, force: true });
      expect(result.compacted).toBe(true);
      const roles = (await s.retrieve()).slice(2).map((m) => m.role);
      expect(roles).toEqual(['assistant', 'tool', 'assistant']);
    });

    it('updates the previous summary with only the newly covered messages', async () => {
      const { s } = await session();
      await s.save(longConversation(6));
      const compactor = llmCompactor(2);
      llm.reply('FIRST-SUMMARY');
      await compactor.compact(s, { thresholdTokens: 1 });
      await s.save([
        userMessage('later question'),
        assistantMessage('later answer'),
        userMessage('even later'),
      ]);
      const before = llm.requests.length;
      llm.reply('SECOND-SUMMARY');
      const second = await compactor.compact(s, { thresholdTokens: 1 });
      expect(second.compacted).toBe(true);
      const prompt = JSON.stringify(llm.requests[before]!.body.messages);
      expect(prompt).toContain('FIRST-SUMMARY');
      expect(prompt).not.toContain('question 0 ');
      expect(prompt).toContain('later question');
      const context = await s.retrieve();
      expect(textContent(context[0]!)).toBe(`${SUMMARY_PREFIX}SECOND-SUMMARY`);
      expect(texts([context[1]!])).toEqual(['TASK: plan the data migration']);
    });

    it('changes nothing when the LLM fails, and says so', async () => {
      const { b, id, s } = await session();
      await s.save(longConversation(6));
      const before = { state: await s.loadSnapshot(), info: await b.inspect(id) };
      llm.failNext(500, 'model overloaded');
      await expect(llmCompactor(2).compact(s, { thresholdTokens: 1 })).rejects.toThrow(
        /overloaded/,
      );
      expect(await s.loadSnapshot()).toEqual(before.state);
      expect((await b.inspect(id))?.stored).toBe(before.info?.stored);
    });

    it('lets one of two racing compactions win and loses nothing', async () => {
      const { b, id, s } = await session();
      await s.save(longConversation(10));
      const other = await (await replica(b)).open(id);
      const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: 4 });
      const results = await Promise.all([
        compactor.compact(s, { thresholdTokens: 1 }),
        compactor.compact(other, { thresholdTokens: 1 }),
      ]);
      expect(results.filter((r) => r.compacted).length).toBeGreaterThanOrEqual(1);
      for (const r of results)
        if (!r.compacted)
          expect(['conflict', 'nothing-to-cover', 'below-threshold']).toContain(r.reason);
      const { snapshot, tail } = await s.loadSnapshot();
      expect(snapshot).not.toBeNull();
      expect(texts(tail.map((e) => e.message))).toEqual(texts(longConversation(10).slice(-4)));
      expect((await b.inspect(id))?.messages).toBe(21);
    });

    for (const prune of [true, false]) {
      itPruning(prune)(`respects pruneCompacted ${prune}`, async () => {
        const { b, id, s } = await session({ pruneCompacted: prune });
        await s.save(longConversation(5));
        await new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: 3 }).compact(s, {
          thresholdTokens: 1,
        });
        expect(await b.inspect(id)).toMatchObject({
          messages: 11,
          stored: prune ? 3 : 11,
          hasSnapshot: true,
        });
      });
    }

    it('computes a dry run without saving', async () => {
      const { s } = await session();
      await s.save(longConversation(5));
      const result = await new SummaryCompactor(new ExtractiveSummarizer(), {
        keepRecent: 3,
      }).compact(s, { thresholdTokens: 1, dryRun: true });
      // The task is pinned, so the summary does not say it again.
      expect(result).toMatchObject({
        compacted: false,
        snapshot: { pinned: [longConversation(0)[0]] },
      });
      expect(result.reason).toBeUndefined();
      expect(result.snapshot?.summary).not.toContain('TASK');
      expect(result.upTo).toBeDefined();
      expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
      expect((await s.loadSnapshot()).snapshot).toBeNull();
    });

    it('reports nothing to cover when only recent messages remain', async () => {
      const { s } = await session();
      await s.save(conversation(3));
      const result = await new SummaryCompactor(new ExtractiveSummarizer(), {
        keepRecent: 5,
      }).compact(s, { thresholdTokens: 1 });
      expect(result).toMatchObject({ compacted: false, reason: 'nothing-to-cover' });
    });
  });
}
