/**
 * The AI SDK's own `generateText` loop (tool call, tool result, answer) run two turns on one
 * session through our stores, against a real local OpenAI-compatible server: the second turn's
 * request must be exactly the one the SDK sends when it keeps the history in memory itself.
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import {
  describeSdkLoopOnStores,
  scriptWeatherTurns,
  WEATHER_TURNS as TURNS,
} from '@agent-memory/test-support/sdk-loop';
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { fromModelMessages, toModelMessages } from '.';

const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: 'rain', celsius: 9 }),
});

type Mode = 'generateText' | 'streamText';

/** One turn of the SDK's loop on `history`; returns the messages the turn added. */
async function turn(
  llm: FakeLlm,
  mode: Mode,
  history: ModelMessage[],
  text: string,
): Promise<ModelMessage[]> {
  const model = createOpenAI({ baseURL: llm.baseUrl, apiKey: 'k' }).chat('fake-model');
  const input: ModelMessage = { role: 'user', content: text };
  const call = {
    model,
    tools: { weather },
    stopWhen: stepCountIs(3),
    messages: [...history, input],
  };
  if (mode === 'generateText') {
    const result = await generateText(call);
    return [input, ...result.response.messages];
  }
  const result = streamText(call);
  await result.consumeStream();
  return [input, ...(await result.response).messages];
}

describeSdkLoopOnStores('AI SDK generateText', (loop) => {
  it.each<Mode>(['generateText', 'streamText'])(
    '%s sends the second turn with the first one exactly as the SDK keeps it itself',
    async (mode) => {
      const { llm, backend } = loop;
      const sessionId = `ai-sdk.${mode}`;
      const before = llm.requests.length;
      // The SDK keeping its own history in memory: the reference requests.
      scriptWeatherTurns(llm, 'Let me look.');
      let kept: ModelMessage[] = [];
      for (const text of TURNS) kept = [...kept, ...(await turn(llm, mode, kept, text))];
      const reference = llm.requests.slice(before).map((request) => request.body.messages);

      // The same turns, each starting from the store.
      scriptWeatherTurns(llm, 'Let me look.');
      const session = await backend.open(sessionId);
      for (const text of TURNS) {
        const history = toModelMessages(await session.retrieve());
        await session.save(fromModelMessages(await turn(llm, mode, history, text)));
      }
      const viaStore = llm.requests
        .slice(before + reference.length)
        .map((request) => request.body.messages);

      expect(viaStore).toEqual(reference);
      // The streaming loop really streamed: every request asked for server-sent chunks.
      const streamed = llm.requests.slice(before).map((request) => request.body.stream === true);
      expect(new Set(streamed)).toEqual(new Set([mode === 'streamText']));
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
      const stored = await (await backend.open(sessionId)).retrieve();
      expect(stored[1]).toMatchObject({
        role: 'assistant',
        parts: [{ type: 'text', text: 'Let me look.' }],
        toolCalls: [{ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
      });
      expect(stored[2]).toMatchObject({ role: 'tool', toolCallId: 'call_1' });
      expect(toModelMessages(stored)).toEqual(kept);
    },
  );
});
