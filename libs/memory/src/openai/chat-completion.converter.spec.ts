import fc from 'fast-check';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { InvalidMessageError, validateMessages, type ContentPart, type Message } from '../core';
import {
  TOOL_ERROR_PREFIX,
  fromChatCompletionMessage,
  fromChatCompletionMessages,
  toChatCompletionMessages,
} from '.';

/** JSON values as SDKs put them in provider fields. */
const jsonValue = fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.parse(JSON.stringify(value)));

/** Extra fields with names the converters do not map themselves. */
function extraFields(reserved: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).filter((key) => !reserved.includes(key)),
    jsonValue,
    { minKeys: 1, maxKeys: 3 },
  );
}

function withOptional<T extends object>(
  base: fc.Arbitrary<T>,
  key: string,
  value: fc.Arbitrary<unknown>,
): fc.Arbitrary<T> {
  return fc
    .tuple(base, fc.option(value, { nil: undefined }))
    .map(([object, field]) => (field === undefined ? object : { ...object, [key]: field }));
}

const partData = extraFields(['type', 'text', 'image_url', 'part']).map((chatCompletions) => ({
  chatCompletions,
}));
const textPart: fc.Arbitrary<ContentPart> = withOptional(
  fc.string().map((text): ContentPart => ({ type: 'text', text })),
  'providerData',
  partData,
);
const imagePart: fc.Arbitrary<ContentPart> = fc.oneof(
  fc.webUrl().map((imageUrl): ContentPart => ({ type: 'image_url', imageUrl })),
  fc
    .tuple(
      fc.base64String({ minLength: 4 }).filter((data) => data !== ''),
      fc.constantFrom('image/png', 'image/jpeg', 'image/webp'),
    )
    .map(([imageBase64, mimeType]): ContentPart => ({
      type: 'image_base64',
      imageBase64,
      mimeType,
    })),
);
const toolCall = fc.record({
  id: fc.string({ minLength: 1 }),
  type: fc.constant('function' as const),
  function: fc.record({ name: fc.string({ minLength: 1 }), arguments: fc.json() }),
});
const name = fc.string({ minLength: 1, maxLength: 12 });
const messageData = extraFields(['role', 'content', 'name', 'tool_calls', 'tool_call_id']).map(
  (chatCompletions) => ({ chatCompletions }),
);

function message(
  role: Message['role'],
  parts: fc.Arbitrary<ContentPart[]>,
  more: Partial<Record<keyof Message, fc.Arbitrary<unknown>>> = {},
): fc.Arbitrary<Message> {
  let result = parts.map((list): Message => ({ role, parts: list }));
  for (const [key, value] of Object.entries({ name, providerData: messageData, ...more })) {
    result = withOptional(result, key, value);
  }
  return result;
}

/** Every message the Chat Completions API can carry, in our model. */
const chatMessage: fc.Arbitrary<Message> = fc.oneof(
  message('system', fc.array(textPart, { maxLength: 3 })),
  message('system', fc.array(textPart, { maxLength: 2 }), {
    providerData: fc.constant({ chatCompletions: { role: 'developer' } }),
  }),
  message('user', fc.array(fc.oneof(textPart, imagePart), { maxLength: 4 })),
  message('assistant', fc.array(textPart, { maxLength: 3 }), {
    toolCalls: fc.array(toolCall, { minLength: 1, maxLength: 3 }),
  }),
  fc
    .tuple(
      message(
        'tool',
        fc.array(textPart, { minLength: 1, maxLength: 3 }).filter(
          // A successful result's text starting like a failed one reads back as failed (documented).
          ([first]) => !first!.text!.startsWith(TOOL_ERROR_PREFIX),
        ),
      ),
      fc.string({ minLength: 1 }),
      fc.boolean(),
    )
    .map(([tool, toolCallId, failed]) => {
      const answer: Message = { ...tool, toolCallId };
      if (failed) answer.toolError = true;
      return answer;
    }),
);

describe('Chat Completions converters', () => {
  it('give back every message they were given (property)', () => {
    fc.assert(
      fc.property(fc.array(chatMessage, { maxLength: 6 }), (messages) => {
        const wire = JSON.parse(JSON.stringify(toChatCompletionMessages(messages))) as unknown[];
        expect(fromChatCompletionMessages(wire)).toEqual(messages);
      }),
      { numRuns: 300 },
    );
  });

  it('write what the openai SDK accepts, and read what the API answers back unchanged', () => {
    const sent: ChatCompletionMessageParam[] = toChatCompletionMessages([
      { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      {
        role: 'user',
        name: 'ada',
        parts: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_base64', imageBase64: 'aGVsbG8=', mimeType: 'image/png' },
        ],
      },
    ]);
    expect(sent).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        name: 'ada',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,aGVsbG8=' } },
        ],
      },
    ]);

    const answer = {
      role: 'assistant',
      content: null,
      refusal: null,
      annotations: [],
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
      ],
    };
    const stored = fromChatCompletionMessage(answer);
    expect(stored).toEqual({
      role: 'assistant',
      parts: [],
      toolCalls: [
        { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
      ],
      providerData: { chatCompletions: { refusal: null, annotations: [] } },
    });
    expect(validateMessages([stored])).toEqual([stored]);
    expect(toChatCompletionMessages([stored])).toEqual([answer]);
  });

  it('send a failed tool result with the error prefix and read it back as failed', () => {
    const failed: Message = {
      role: 'tool',
      toolCallId: 'call_1',
      toolError: true,
      parts: [{ type: 'text', text: 'service down' }],
    };
    expect(toChatCompletionMessages([failed])).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'Error: service down' },
    ]);
    expect(fromChatCompletionMessages(toChatCompletionMessages([failed]))).toEqual([failed]);
  });

  it('keep content parts the model has no type for, in place', () => {
    const wire = {
      role: 'user',
      content: [
        { type: 'text', text: 'listen' },
        { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
        { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } },
      ],
    };
    const [stored] = fromChatCompletionMessages([wire]);
    expect(stored!.parts[2]).toEqual({
      type: 'image_url',
      imageUrl: 'https://x.test/a.png',
      providerData: { chatCompletions: { image_url: { detail: 'low' } } },
    });
    expect(toChatCompletionMessages([stored!])).toEqual([wire]);
  });

  it("send only their own provider fields, never another adapter's", () => {
    const message: Message = {
      role: 'user',
      parts: [{ type: 'text', text: 'hi', providerData: { aiSdk: { providerOptions: {} } } }],
      providerData: { aiSdk: { providerOptions: { openai: { user: 'u1' } } } },
    };
    expect(toChatCompletionMessages([message])).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('refuse what is not a chat message, naming the path', () => {
    expect(() => fromChatCompletionMessages([{ role: 'function', content: 'x' }])).toThrow(
      InvalidMessageError,
    );
    expect(() => fromChatCompletionMessages([{ role: 'tool', content: 'x' }])).toThrow(
      'messages[0].tool_call_id',
    );
    expect(() =>
      toChatCompletionMessages([
        { role: 'user', parts: [{ type: 'image_base64', imageBase64: 'AA' }] },
      ]),
    ).toThrow('messages[0].parts[0].mimeType');
  });

  it('reads data URLs by the shared rules: parameters kept, a malformed one refused by its path', () => {
    const url = 'data:image/svg+xml;charset=utf-8;base64,PHN2Zy8+';
    const [message] = fromChatCompletionMessages([
      { role: 'user', content: [{ type: 'image_url', image_url: { url } }] },
    ]);
    expect(message!.parts).toEqual([
      { type: 'image_base64', imageBase64: 'PHN2Zy8+', mimeType: 'image/svg+xml;charset=utf-8' },
    ]);
    expect(toChatCompletionMessages([message!])[0]!.content).toEqual([
      { type: 'image_url', image_url: { url } },
    ]);
    expect(() =>
      fromChatCompletionMessages([
        {
          role: 'user',
          content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,a b' } }],
        },
      ]),
    ).toThrow('messages[0].content[0].image_url.url');
  });

  it('keeps a wire field named __proto__ as a field, without touching any prototype', () => {
    const wire = JSON.parse(
      '{"role":"assistant","content":"hi","__proto__":{"polluted":true}}',
    ) as unknown;
    const [message] = fromChatCompletionMessages([wire]);
    const kept = message!.providerData!.chatCompletions as Record<string, unknown>;
    expect(Object.hasOwn(kept, '__proto__')).toBe(true);
    const [back] = toChatCompletionMessages([message!]);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect((back as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(back, '__proto__')?.value).toEqual({ polluted: true });
  });
});
