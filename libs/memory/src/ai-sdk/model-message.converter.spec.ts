import type { ModelMessage } from 'ai';
import fc from 'fast-check';
import { validateMessages } from '../core';
import { fromModelMessages, toModelMessages } from '.';

/** JSON values as an SDK holds them (no -0, no undefined). */
const json = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)));
const providerOptions = fc.option(
  fc.dictionary(
    fc.constantFrom('openai', 'anthropic', 'google'),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), json, { maxKeys: 2 }),
    { minKeys: 1, maxKeys: 2 },
  ),
  { nil: undefined },
);
const text = fc.string({ maxLength: 20 });
const id = fc.uuid();
const mediaType = fc.constantFrom('image/png', 'image/jpeg', 'application/pdf');

/** Drops undefined fields, as a stored message has none. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const data = fc.oneof(
  fc.base64String({ minLength: 4, maxLength: 16 }),
  fc.webUrl(),
  fc.webUrl().map((url) => new URL(url)),
  fc.uint8Array({ minLength: 1, maxLength: 8 }),
);
const textPart = fc
  .record({ text, providerOptions })
  .map(({ text, providerOptions }) => defined({ type: 'text' as const, text, providerOptions }));
const imagePart = fc
  .record({ image: data, mediaType: fc.option(mediaType, { nil: undefined }), providerOptions })
  .map((part) => defined({ type: 'image' as const, ...part }));
const filePart = fc
  .record({
    data,
    mediaType,
    filename: fc.option(text, { nil: undefined }),
    providerOptions,
  })
  .map((part) => defined({ type: 'file' as const, ...part }));
const reasoningPart = fc
  .record({ text, providerOptions })
  .map((part) => defined({ type: 'reasoning' as const, ...part }));
const toolCallPart = fc
  .record({
    toolCallId: id,
    toolName: fc.string({ minLength: 1, maxLength: 8 }),
    input: json,
    providerOptions,
    providerExecuted: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map((part) => defined({ type: 'tool-call' as const, ...part }));
const outputItem = fc.oneof(
  textPart,
  fc.record({ data: fc.base64String({ minLength: 4 }), mediaType }).map((item) => ({
    type: 'media' as const,
    ...item,
  })),
  fc
    .record({ data: fc.base64String({ minLength: 4 }), mediaType, providerOptions })
    .map((item) => defined({ type: 'image-data' as const, ...item })),
  fc
    .record({
      data: fc.base64String({ minLength: 4 }),
      mediaType,
      filename: fc.option(text, { nil: undefined }),
      providerOptions,
    })
    .map((item) => defined({ type: 'file-data' as const, ...item })),
  fc
    .record({ url: fc.webUrl(), providerOptions })
    .map((item) => defined({ type: 'image-url' as const, ...item })),
  fc
    .record({
      url: fc.webUrl(),
      mediaType: fc.option(mediaType, { nil: undefined }),
      providerOptions,
    })
    .map((item) => defined({ type: 'file-url' as const, ...item })),
  fc.record({ fileId: id }).map((item) => ({ type: 'file-id' as const, ...item })),
  fc.constant({ type: 'custom' as const }),
);
const output = fc
  .oneof(
    fc.record({
      type: fc.constantFrom('text' as const, 'error-text' as const),
      value: text,
      providerOptions,
    }),
    fc.record({
      type: fc.constantFrom('json' as const, 'error-json' as const),
      value: json,
      providerOptions,
    }),
    fc.record({
      type: fc.constant('execution-denied' as const),
      reason: fc.option(text, { nil: undefined }),
      providerOptions,
    }),
    fc.record({
      type: fc.constant('content' as const),
      value: fc.array(outputItem, { maxLength: 3 }),
    }),
  )
  .map(defined);
const toolResultPart = fc
  .record({
    toolCallId: id,
    toolName: fc.string({ minLength: 1, maxLength: 8 }),
    output,
    providerOptions,
  })
  .map((part) => defined({ type: 'tool-result' as const, ...part }));
const approvalRequest = fc
  .record({ approvalId: id, toolCallId: id })
  .map((part) => ({ type: 'tool-approval-request' as const, ...part }));

/** Every kind of message and part the AI SDK's `ModelMessage` allows (tool approval responses aside). */
const modelMessage: fc.Arbitrary<ModelMessage> = fc.oneof(
  fc.record({ role: fc.constant('system' as const), content: text, providerOptions }).map(defined),
  fc
    .record({
      role: fc.constant('user' as const),
      content: fc.oneof(text, fc.array(fc.oneof(textPart, imagePart, filePart), { maxLength: 4 })),
      providerOptions,
    })
    .map(defined),
  fc
    .record({
      role: fc.constant('assistant' as const),
      content: fc.oneof(
        text,
        fc.array(
          fc.oneof(
            textPart,
            filePart,
            reasoningPart,
            toolCallPart,
            toolResultPart,
            approvalRequest,
          ),
          { maxLength: 5 },
        ),
      ),
      providerOptions,
    })
    .map(defined),
  fc
    .record({
      role: fc.constant('tool' as const),
      content: fc.array(toolResultPart, { minLength: 1, maxLength: 3 }),
      providerOptions,
    })
    .map(defined),
) as fc.Arbitrary<ModelMessage>;

describe('AI SDK model message converters', () => {
  it('give back every model message through a store (property)', () => {
    fc.assert(
      fc.property(fc.array(modelMessage, { maxLength: 6 }), (messages) => {
        const ours = fromModelMessages(messages);
        const stored = validateMessages(JSON.parse(JSON.stringify(ours)) as unknown[]);
        expect(toModelMessages(stored)).toEqual(messages);
      }),
      { numRuns: 300 },
    );
  });

  it('give the model plain parts: tool calls, results and errors in our own fields', () => {
    const ours = fromModelMessages([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'weather',
            output: { type: 'error-text', value: 'down' },
          },
        ],
      },
    ]);
    expect(ours).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'weather?' }] },
      {
        role: 'assistant',
        parts: [{ type: 'text', text: 'Looking.' }],
        toolCalls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolError: true, parts: [{ type: 'text', text: 'down' }] },
    ]);
  });

  it('reads images by the shared rules: bytes as base64, a malformed data URL refused by its path', () => {
    const [ours] = fromModelMessages([
      {
        role: 'user',
        content: [{ type: 'image', image: new Uint8Array([104, 105]), mediaType: 'image/png' }],
      },
    ]);
    expect(ours!.parts[0]).toMatchObject({
      type: 'image_base64',
      imageBase64: 'aGk=',
      mimeType: 'image/png',
    });
    expect(() =>
      fromModelMessages([
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'see' },
            { type: 'file', data: 'data:image/png;base64', mediaType: 'image/png' },
          ],
        },
      ]),
    ).toThrow('messages[1].content[1].data');
  });
});
