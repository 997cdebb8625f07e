/**
 * What one adapter stores, another reads: a conversation saved from the AI SDK, read by LangChain,
 * saved again, sent as Chat Completions, read back, run through an Agents SDK session's items and
 * handed to the AI SDK again is the same
 * conversation, and every stored form in between is our canonical message model.
 */
import type { ModelMessage } from 'ai';
import fc from 'fast-check';
import { validateMessages, type ContentPart, type Message } from './core';
import { fromModelMessages, toModelMessages } from './ai-sdk';
import { fromBaseMessages, toBaseMessages } from './langchain';
import { fromChatCompletionMessages, toChatCompletionMessages } from './openai';
import { fromAgentInputItems, toAgentInputItems } from './openai-agents';

/** A save and a read: the JSON a store keeps, validated as every save does. */
function throughStore(messages: Message[]): Message[] {
  return validateMessages(JSON.parse(JSON.stringify(messages)) as unknown[]);
}

const text = fc.string({ minLength: 1, maxLength: 16 });
const userPart: fc.Arbitrary<ContentPart> = fc.oneof(
  text.map((t): ContentPart => ({ type: 'text', text: t })),
  fc.webUrl().map((imageUrl): ContentPart => ({ type: 'image_url', imageUrl })),
  fc
    .base64String({ minLength: 4, maxLength: 12 })
    .filter((data) => data !== '')
    .map((imageBase64): ContentPart => ({
      type: 'image_base64',
      imageBase64,
      mimeType: 'image/png',
    })),
);

/** One turn: a user message, tool calls and their results (some failed), an answer. */
const turn: fc.Arbitrary<Message[]> = fc
  .record({
    user: fc.array(userPart, { minLength: 1, maxLength: 3 }),
    calls: fc.array(
      fc.record({
        id: fc.uuid(),
        name: fc.constantFrom('weather', 'search'),
        args: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.integer(), {
          maxKeys: 2,
        }),
        result: text,
        failed: fc.boolean(),
      }),
      { maxLength: 2 },
    ),
    answer: text,
  })
  .map(({ user, calls, answer }) => {
    const messages: Message[] = [{ role: 'user', parts: user }];
    if (calls.length > 0) {
      messages.push({
        role: 'assistant',
        parts: [],
        toolCalls: calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        })),
      });
      for (const call of calls) {
        const result: Message = {
          role: 'tool',
          toolCallId: call.id,
          parts: [{ type: 'text', text: call.result }],
        };
        if (call.failed) result.toolError = true;
        messages.push(result);
      }
    }
    messages.push({ role: 'assistant', parts: [{ type: 'text', text: answer }] });
    return messages;
  });

const conversation = fc
  .tuple(text, fc.array(turn, { minLength: 1, maxLength: 3 }))
  .map(([system, turns]): Message[] => [
    { role: 'system', parts: [{ type: 'text', text: system }] },
    ...turns.flat(),
  ]);

describe('adapters read what other adapters stored', () => {
  it('AI SDK -> store -> LangChain -> store -> Chat Completions -> store -> Agents SDK -> store -> AI SDK is a full circle (property)', () => {
    fc.assert(
      fc.property(conversation, (canonical) => {
        // The conversation as the AI SDK produced it.
        const sdkMessages: ModelMessage[] = toModelMessages(canonical);

        const fromSdk = throughStore(fromModelMessages(sdkMessages));
        expect(fromSdk).toEqual(canonical);
        const fromLangChain = throughStore(fromBaseMessages(toBaseMessages(fromSdk)));
        expect(fromLangChain).toEqual(canonical);
        const fromWire = throughStore(
          fromChatCompletionMessages(
            JSON.parse(JSON.stringify(toChatCompletionMessages(fromLangChain))) as unknown[],
          ),
        );
        expect(fromWire).toEqual(canonical);
        const fromAgents = throughStore(
          fromAgentInputItems(JSON.parse(JSON.stringify(toAgentInputItems(fromWire))) as []),
        );
        expect(fromAgents).toEqual(canonical);
        expect(toModelMessages(fromAgents)).toEqual(sdkMessages);
      }),
      { numRuns: 200 },
    );
  });
});
