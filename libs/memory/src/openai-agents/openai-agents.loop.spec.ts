/**
 * The Agents SDK's own `run()` loop (tool call, tool result, answer) on our stores, against a real
 * local OpenAI-compatible server: the second turn's request holds the first turn exactly as it
 * does with the SDK's in-memory session, and the stored log is our canonical messages.
 */
import type { FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import {
  describeSdkLoopOnStores,
  scriptWeatherTurns,
  WEATHER_TURNS as TURNS,
} from '@agent-memory/test-support/sdk-loop';
import {
  Agent,
  MemorySession,
  OpenAIProvider,
  run,
  setTracingDisabled,
  tool,
  type Session,
} from '@openai/agents';
import { z } from 'zod';
import { ExtractiveSummarizer, SummaryCompactor } from '../compaction';
import { SUMMARY_PREFIX, textContent } from '../core';
import { AgentMemorySession } from '.';

setTracingDisabled(true);

/** The SDK's own OpenAI provider's model on the Chat Completions API of the local server. */
function fakeModel(llm: FakeLlm) {
  const provider = new OpenAIProvider({ apiKey: 'k', baseURL: llm.baseUrl, useResponses: false });
  return provider.getModel('fake-model');
}

/** An agent with the `weather` tool. */
async function agent(llm: FakeLlm): Promise<Agent> {
  return new Agent({
    name: 'Forecaster',
    instructions: 'Be brief.',
    model: await fakeModel(llm),
    tools: [
      tool({
        name: 'weather',
        description: 'The weather in a city',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => JSON.stringify({ city, sky: 'rain' }),
      }),
    ],
  });
}

/** The text of a Chat Completions message's content (a string or text parts). */
function wireText(content: unknown): string {
  if (typeof content === 'string') return content;
  return ((content ?? []) as { text?: string }[]).map((part) => part.text ?? '').join('\n');
}

/** Both turns on `session`; the requests the server received meanwhile. */
async function converse(llm: FakeLlm, session: () => Promise<Session>) {
  const before = llm.requests.length;
  scriptWeatherTurns(llm);
  for (const text of TURNS) await run(await agent(llm), text, { session: await session() });
  return llm.requests.slice(before).map((request) => request.body.messages);
}

describeSdkLoopOnStores('OpenAI Agents SDK', (loop) => {
  it("run() sends the second turn exactly as with the SDK's in-memory session", async () => {
    const { llm, backend } = loop;
    const inMemory = new MemorySession();
    const reference = await converse(llm, async () => inMemory);
    // A fresh session object per turn: the history comes back from the store, not from memory.
    const viaStore = await converse(llm, () => AgentMemorySession.open(backend, 'agents.weather'));

    expect(viaStore).toEqual(reference);
    const second = viaStore[viaStore.length - 1]!;
    expect(second.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(second[2]).toMatchObject({
      tool_calls: [{ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
    });
    expect(second[3]).toMatchObject({
      tool_call_id: 'call_1',
      content: JSON.stringify({ city: 'Oslo', sky: 'rain' }),
    });

    // What the store holds is our message model, readable by every other adapter.
    const stored = await (await backend.open('agents.weather')).retrieve();
    expect(stored.map(({ providerData: _data, ...message }) => message)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: TURNS[0] }] },
      {
        role: 'assistant',
        parts: [],
        toolCalls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'call_1',
        parts: [{ type: 'text', text: JSON.stringify({ city: 'Oslo', sky: 'rain' }) }],
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'Rain in Oslo, 9 °C.' }] },
      { role: 'user', parts: [{ type: 'text', text: TURNS[1] }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Yes, take one.' }] },
    ]);
    // The SDK reads back exactly the items it stored (the fake server numbers its answers' ids).
    const withoutIds = (items: unknown[]) =>
      JSON.stringify(items).replace(/chatcmpl-fake-\d+/g, 'chatcmpl-fake');
    const session = await AgentMemorySession.open(backend, 'agents.weather');
    expect(withoutIds(await session.getItems())).toBe(withoutIds(await inMemory.getItems()));
  });

  it('runs our compactor from the SDK compaction hook: the next turn starts from the summary', async () => {
    const { llm, backend } = loop;
    const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: 2 });
    const open = () =>
      AgentMemorySession.open(backend, 'agents.compacted', {
        compaction: { compactor, thresholdTokens: 1 },
      });
    await converse(llm, open);
    const { snapshot, tail } = await (await backend.open('agents.compacted')).loadSnapshot();
    expect(snapshot).not.toBeNull();

    llm.reply('Dry tomorrow.');
    await run(await agent(llm), 'And tomorrow?', { session: await open() });
    const third = llm.requests[llm.requests.length - 1]!.body.messages;
    // The summary, the pinned task, the kept tail, then the new question: not the whole log.
    expect(third[1]!.role).toBe('user');
    expect(wireText(third[1]!.content)).toMatch(new RegExp(`^${SUMMARY_PREFIX}Latest:`));
    expect(third[2]).toEqual({ role: 'user', content: TURNS[0] });
    expect(third.slice(3).map((message) => wireText(message.content))).toEqual([
      ...tail.map((entry) => textContent(entry.message)),
      'And tomorrow?',
    ]);
  });

  it('an approval interruption resumes from the stored history as with the in-memory session', async () => {
    const { llm, backend } = loop;
    const approvalAgent = async () =>
      new Agent({
        name: 'Booker',
        instructions: 'Be brief.',
        model: await fakeModel(llm),
        tools: [
          tool({
            name: 'book',
            description: 'Books a table',
            parameters: z.object({ city: z.string() }),
            needsApproval: true,
            execute: async ({ city }) => `booked in ${city}`,
          }),
        ],
      });
    const converseWithApproval = async (session: () => Promise<Session>) => {
      const before = llm.requests.length;
      llm.replyWith({
        content: null,
        toolCalls: [
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'book', arguments: '{"city":"Oslo"}' },
          },
        ],
      });
      llm.reply('Booked.');
      llm.reply('You are welcome.');
      const first = await run(await approvalAgent(), 'Book a table in Oslo.', {
        session: await session(),
      });
      expect(first.interruptions).toHaveLength(1);
      first.state.approve(first.interruptions[0]!);
      await run(await approvalAgent(), first.state, { session: await session() });
      await run(await approvalAgent(), 'Thanks!', { session: await session() });
      return llm.requests.slice(before).map((request) => request.body.messages);
    };
    const inMemory = new MemorySession();
    const reference = await converseWithApproval(async () => inMemory);
    const viaStore = await converseWithApproval(() =>
      AgentMemorySession.open(backend, 'agents.approval'),
    );
    expect(viaStore).toEqual(reference);
    expect(viaStore[viaStore.length - 1]!.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });

  it('an answer an output guardrail blocks is kept out of the history, as in memory', async () => {
    const { llm, backend } = loop;
    const guarded = new Agent({
      name: 'Guarded',
      instructions: 'Be brief.',
      model: await fakeModel(llm),
      outputGuardrails: [
        {
          name: 'no secrets',
          execute: async ({ agentOutput }) => ({
            tripwireTriggered: String(agentOutput).includes('secret'),
            outputInfo: {},
          }),
        },
      ],
    });
    const inMemory = new MemorySession();
    const ours = await AgentMemorySession.open(backend, 'agents.guarded');
    for (const session of [inMemory, ours]) {
      llm.reply('The secret is 42.');
      await expect(run(guarded, 'Tell me the secret.', { session })).rejects.toThrow(/guardrail/i);
    }
    const items = await (await AgentMemorySession.open(backend, 'agents.guarded')).getItems();
    expect(items).toEqual(await inMemory.getItems());
    expect(JSON.stringify(items)).not.toContain('The secret is 42.');
  });
});
