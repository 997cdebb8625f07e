import fc from 'fast-check';
import { isCanonicalMessage } from './canonical-message';
import { assistantMessage, toolResultMessage, userMessage } from './message';
import { decodeMessage, validateMessage } from './message.codec';

/** As a store reads its own row back: the validated message through JSON. */
const asStored = (value: unknown): unknown => JSON.parse(JSON.stringify(validateMessage(value)));

describe('isCanonicalMessage', () => {
  it.each([
    ['a user message', userMessage('hello')],
    [
      'an assistant message with a tool call',
      assistantMessage('', [
        { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
      ]),
    ],
    ['a tool result with an error', toolResultMessage('c1', 'failed', { error: true })],
    [
      'parts of every kind, with provider data',
      {
        role: 'user',
        name: 'ann',
        providerData: { cache: { hit: true } },
        parts: [
          { type: 'text', text: '' },
          { type: 'reasoning', text: 'why', signature: 'sig' },
          { type: 'image_url', imageUrl: 'https://example.org/a.png' },
          { type: 'image_base64', imageBase64: 'AAAA', mimeType: 'image/png' },
        ],
      },
    ],
  ])('accepts %s as stored, and it is what decoding would return', (_label, message) => {
    const stored = asStored(message);
    expect(isCanonicalMessage(stored)).toBe(true);
    expect(decodeMessage(stored)).toEqual(stored);
  });

  it.each([
    ['Phero field names', { Role: 'user', Parts: [{ Type: 'text', Text: 'hi' }] }],
    ['an unknown key', { role: 'user', parts: [], extra: 1 }],
    ['an empty optional field', { role: 'user', parts: [], name: '' }],
    ['a tool message without its call id', { role: 'tool', parts: [] }],
    ['a bad role', { role: 5, parts: [] }],
    ['a part without text', { role: 'user', parts: [{ type: 'text' }] }],
    ['no parts', { role: 'user' }],
    ['not an object', 'hello'],
  ])('leaves %s to the full decoder', (_label, value) => {
    expect(isCanonicalMessage(value)).toBe(false);
  });

  it('never accepts a value that decoding would change or refuse', () => {
    const field = fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 3 }),
      fc.boolean(),
      fc.constant(null),
    );
    const part = fc.record(
      {
        type: fc.constantFrom('text', 'reasoning', 'image_url', 'image_base64', 'other'),
        text: field,
        signature: field,
        imageUrl: field,
        imageBase64: field,
        mimeType: field,
      },
      { requiredKeys: [] },
    );
    const message = fc.record(
      {
        role: fc.constantFrom('user', 'assistant', 'tool', 'system', 'nobody'),
        parts: fc.oneof(fc.array(part, { maxLength: 3 }), field),
        toolCallId: field,
        toolError: field,
        name: field,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(message, (value) => {
        const json: unknown = JSON.parse(JSON.stringify(value));
        if (!isCanonicalMessage(json)) return;
        expect(decodeMessage(json)).toEqual(json);
      }),
      { numRuns: 2000 },
    );
  });
});
