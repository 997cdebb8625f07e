/**
 * The AI SDK's own `generateText` loop (tool call, tool result, answer) run two turns on one
 * session through our stores, against a real local OpenAI-compatible server: the second turn's
 * request must be exactly the one the SDK sends when it keeps the history in memory itself.
 */
import { createOpenAI } from '@ai-sdk/openai';
import {
  jsonFileHarness,
  postgresHarness,
  type ConformanceHarness,
} from '@agent-memory/conformance';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import type { MemoryBackend } from '../core';
import { fromModelMessages, toModelMessages } from '.';

const TURNS = ['What is the weather in Oslo?', 'And should I take an umbrella?'];

/** Queues the server's answers for the two turns: a tool call and an answer, then an answer. */
function script(llm: FakeLlm): void {
  llm.replyWith({
    content: 'Let me look.',
    toolCalls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'weather', arguments: '{"city":"Oslo"}' },
      },
    ],
  });
  llm.reply('Rain in Oslo, 9 °C.');
  llm.reply('Yes, take one.');
}

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'rain', celsius: 9 }),
});

/** One turn of the SDK's loop on `history`; returns the messages the turn added. */
async function turn(llm: FakeLlm, history: ModelMessage[], text: string): Promise<ModelMessage[]> {
  const model = createOpenAI({ baseURL: llm.baseUrl, apiKey: 'k' }).chat('fake-model');
  const input: ModelMessage = { role: 'user', content: text };
  const result = await generateText({
    model,
    tools: { weather },
    stopWhen: stepCountIs(3),
    messages: [...history, input],
  });
  return [input, ...result.response.messages];
}

describe.each<[string, () => ConformanceHarness]>([
  ['JSON files', jsonFileHarness],
  ['PostgreSQL', postgresHarness],
])('AI SDK generateText on %s', (_name, makeHarness) => {
  const harness = makeHarness();
  let llm: FakeLlm;
  let backend: MemoryBackend;
  let destroy: () => Promise<void>;

  beforeAll(async () => {
    llm = await startFakeLlm();
    const created = await harness.create();
    backend = created.backend;
    destroy = created.destroy;
  });
  afterAll(async () => {
    await destroy?.();
    await harness.destroy?.();
    await llm?.close();
  });

  it('sends the second turn with the first one exactly as the SDK keeps it itself', async () => {
    // The SDK keeping its own history in memory: the reference requests.
    script(llm);
    let kept: ModelMessage[] = [];
    for (const text of TURNS) kept = [...kept, ...(await turn(llm, kept, text))];
    const reference = llm.requests.map((request) => request.body.messages);

    // The same turns, each starting from the store.
    script(llm);
    const session = await backend.open('ai-sdk.weather');
    for (const text of TURNS) {
      const history = toModelMessages(await session.retrieve());
      await session.save(fromModelMessages(await turn(llm, history, text)));
    }
    const viaStore = llm.requests.slice(reference.length).map((request) => request.body.messages);

    expect(viaStore).toEqual(reference);
    const lastRequest = viaStore[viaStore.length - 1]!;
    expect(lastRequest.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(lastRequest[2]).toMatchObject({
      tool_call_id: 'call_1',
      content: JSON.stringify({ city: 'Oslo', sky: 'rain', celsius: 9 }),
    });

    // What is stored is our canonical form, and gives the SDK's messages back.
    const stored = await (await backend.open('ai-sdk.weather')).retrieve();
    expect(stored[1]).toMatchObject({
      role: 'assistant',
      parts: [{ type: 'text', text: 'Let me look.' }],
      toolCalls: [{ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
    });
    expect(stored[2]).toMatchObject({ role: 'tool', toolCallId: 'call_1' });
    expect(toModelMessages(stored)).toEqual(kept);
  });
});
