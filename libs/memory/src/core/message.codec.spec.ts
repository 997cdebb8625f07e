import {
  assistantMessage,
  InvalidMessageError,
  systemMessage,
  textContent,
  toolResultMessage,
  userMessage,
  validateMessage,
  type Message,
} from '@agent-memory/memory';
import {
  decodeMessage,
  decodeMessages,
  MAX_MESSAGE_PARTS,
  MAX_MESSAGE_TOOL_CALLS,
  validateMessages,
} from './message.codec';
import { unstorableTextReason } from './storable-text';

/** Messages as Phero's Go code writes them: Go field names, `null` for empty lists. */
const goWritten = [
  {
    Role: 'system',
    Parts: [{ Type: 'text', Text: 'be brief' }],
    ToolCalls: null,
    ToolCallID: '',
    Name: '',
  },
  {
    Role: 'user',
    Parts: [
      { Type: 'text', Text: 'look' },
      { Type: 'image_url', ImageURL: 'https://example.test/a.png' },
      { Type: 'image_base64', ImageBase64: 'AAAA', MIMEType: 'image/jpeg' },
    ],
    ToolCalls: null,
  },
  {
    Role: 'assistant',
    Parts: [{ Type: 'reasoning', Text: 'thinking', Signature: 'sig==' }],
    ToolCalls: [
      { ID: 'call_9', Type: 'function', Function: { Name: 'search', Arguments: '{"q":"x"}' } },
    ],
  },
  {
    Role: 'tool',
    Parts: [{ Type: 'text', Text: 'boom' }],
    ToolCallID: 'call_9',
    ToolError: true,
    ToolCalls: null,
  },
];

const ours: Message[] = [
  systemMessage('be brief'),
  userMessage([
    { type: 'text', text: 'look' },
    { type: 'image_url', imageUrl: 'https://example.test/a.png' },
    { type: 'image_base64', imageBase64: 'AAAA', mimeType: 'image/jpeg' },
  ]),
  {
    role: 'assistant',
    parts: [{ type: 'reasoning', text: 'thinking', signature: 'sig==' }],
    toolCalls: [
      { id: 'call_9', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } },
    ],
  },
  toolResultMessage('call_9', 'boom', { error: true }),
];

describe('message codec', () => {
  it('reads messages written by Phero into our camelCase shape', () => {
    expect(decodeMessages(goWritten)).toEqual(ours);
  });

  it('round-trips our shape through JSON unchanged', () => {
    expect(decodeMessages(JSON.parse(JSON.stringify(ours)))).toEqual(ours);
  });

  it('writes keys that Phero reads back (its decoder matches names case-insensitively)', () => {
    const json = JSON.stringify(ours[3]);
    expect(JSON.parse(json)).toEqual({
      role: 'tool',
      parts: [{ type: 'text', text: 'boom' }],
      toolCallId: 'call_9',
      toolError: true,
    });
  });

  it("refuses a message in another library's shape instead of reading it as empty, naming the field", () => {
    for (const value of [
      { role: 'user', content: 'hi' },
      { role: 'assistant', Content: [{ type: 'text', text: 'hi' }] },
    ]) {
      expect(() => decodeMessage(value)).toThrow(
        expect.objectContaining({
          code: 'INVALID_MESSAGE',
          path: expect.stringMatching(/^message\.[cC]ontent$/),
        }),
      );
    }
    // Phero's own empty forms stay valid: parts null, or no parts and only known fields.
    expect(decodeMessage({ role: 'assistant', parts: null }).parts).toEqual([]);
    expect(decodeMessage({ role: 'tool', toolCallId: 'c' }).parts).toEqual([]);
  });

  it('does not share objects with its input', () => {
    const input = userMessage('hi');
    const decoded = validateMessage(input);
    input.parts[0]!.text = 'changed';
    expect(textContent(decoded)).toBe('hi');
  });

  it.each([
    [{ role: 'user', parts: [{ type: 'video' }] }, 'message.parts[0].type'],
    [{ role: 'admin', parts: [] }, 'message.role'],
    ['hello', 'message'],
    [{ role: 'user', parts: 'hi' }, 'message.parts'],
    [{ role: 'user', parts: [{ type: 'text', text: 3 }] }, 'message.parts[0].text'],
    [{ role: 'user', parts: [{ type: 'image_url' }] }, 'message.parts[0].imageUrl'],
    [
      { role: 'user', parts: [{ type: 'image_base64', mimeType: 'image/png' }] },
      'message.parts[0].imageBase64',
    ],
    [{ role: 'tool', parts: [] }, 'message.toolCallId'],
    [
      { role: 'user', parts: [], toolCalls: [{ id: 'c', function: { name: 'f' } }] },
      'message.toolCalls',
    ],
    [
      { role: 'assistant', parts: [], toolCalls: [{ id: 'c', function: {} }] },
      'message.toolCalls[0].function.name',
    ],
    [
      { role: 'assistant', parts: [], toolCalls: [{ function: { name: 'f' } }] },
      'message.toolCalls[0].id',
    ],
    [{ role: 'user', parts: [], toolError: true }, 'message.toolError'],
    [{ role: 'tool', parts: [], toolCallId: 'c', toolError: 'yes' }, 'message.toolError'],
  ])('refuses %j naming %s', (value, path) => {
    expect(() => validateMessage(value)).toThrow(InvalidMessageError);
    expect(() => validateMessage(value)).toThrow(
      expect.objectContaining({ path, code: 'INVALID_MESSAGE' }),
    );
  });

  it('refuses an object naming one field twice in different case, naming both keys', () => {
    for (const [value, path] of [
      [{ role: 'user', ROLE: 'system', parts: [] }, 'message'],
      [
        { role: 'user', parts: [{ type: 'text', Type: 'image_url', text: 'x' }] },
        'message.parts[0]',
      ],
    ] as const) {
      expect(() => validateMessage(value)).toThrow(
        expect.objectContaining({ path, code: 'INVALID_MESSAGE' }),
      );
    }
    expect(() => validateMessage({ role: 'user', ROLE: 'system', parts: [] })).toThrow(
      /"role" and "ROLE" name the same field/,
    );
  });

  it('bounds the parts and tool calls of a saved message, before reading them', () => {
    const parts = (count: number) => Array.from({ length: count }, () => ({ type: 'text' }));
    expect(validateMessage({ role: 'user', parts: parts(MAX_MESSAGE_PARTS) }).parts).toHaveLength(
      MAX_MESSAGE_PARTS,
    );
    // Items past the limit are never decoded: a bad one there does not change the answer.
    const tooMany = [...parts(MAX_MESSAGE_PARTS), { type: 'video' }];
    expect(() => validateMessage({ role: 'user', parts: tooMany })).toThrow(
      expect.objectContaining({
        path: 'message.parts',
        reason: `a message holds at most ${MAX_MESSAGE_PARTS} parts, got ${MAX_MESSAGE_PARTS + 1}`,
      }),
    );
    const call = { id: 'c', function: { name: 'f', arguments: '{}' } };
    const calls = Array.from({ length: MAX_MESSAGE_TOOL_CALLS + 1 }, () => call);
    expect(() => validateMessage({ role: 'assistant', parts: [], toolCalls: calls })).toThrow(
      expect.objectContaining({ path: 'message.toolCalls' }),
    );
    // Reading what is stored applies no limit.
    expect(
      decodeMessages([{ role: 'user', parts: tooMany.slice(0, -1).concat(parts(1)) }])[0]!.parts,
    ).toHaveLength(MAX_MESSAGE_PARTS + 1);
  });

  it('names the index of the bad message in a batch', () => {
    expect(() =>
      decodeMessages([
        userMessage('ok'),
        { role: 'user', parts: [{ type: 'text' }, { type: 'x' }] },
      ]),
    ).toThrow(expect.objectContaining({ path: 'messages[1].parts[1].type' }));
  });
});

describe('message helpers', () => {
  it('build each role', () => {
    expect(userMessage('hi')).toEqual({ role: 'user', parts: [{ type: 'text', text: 'hi' }] });
    expect(
      assistantMessage('', [
        { id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } },
      ]),
    ).toEqual({
      role: 'assistant',
      parts: [],
      toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
    expect(toolResultMessage('c', 'ok')).toEqual({
      role: 'tool',
      parts: [{ type: 'text', text: 'ok' }],
      toolCallId: 'c',
    });
  });

  it('textContent joins text parts with newlines and skips reasoning and images', () => {
    const message = userMessage([
      { type: 'text', text: 'a' },
      { type: 'reasoning', text: 'hidden' },
      { type: 'image_url', imageUrl: 'u' },
      { type: 'text', text: 'b' },
    ]);
    expect(textContent(message)).toBe('a\nb');
  });
});

describe('text every store can keep', () => {
  it.each([
    [{ type: 'reasoning', text: 'r', signature: 's\u0000' }, 'parts[0].signature'],
    [{ type: 'image_url', imageUrl: 'https://x.test/\uD800' }, 'parts[0].imageUrl'],
    [
      { type: 'image_base64', imageBase64: 'AA==', mimeType: 'image/\u0000png' },
      'parts[0].mimeType',
    ],
  ])('validateMessage refuses %j naming the path', (part, path) => {
    const value = { role: 'user', parts: [part] };
    expect(() => validateMessage(value)).toThrow(InvalidMessageError);
    expect(() => validateMessage(value)).toThrow(
      expect.objectContaining({ path: `message.${path}` }),
    );
  });

  it.each([
    [
      {
        role: 'assistant',
        parts: [],
        toolCalls: [
          { id: 'a', function: { name: 'f', arguments: '{}' } },
          { id: 'b', function: { name: 'g', arguments: '{"x":"\u0000"}' } },
        ],
      },
      'messages[1].toolCalls[1].function.arguments',
    ],
    [{ role: 'tool', parts: [], toolCallId: 'c\uDC00' }, 'messages[1].toolCallId'],
    [{ role: 'user', parts: [], name: 'ada\u0000' }, 'messages[1].name'],
  ])('validateMessages refuses %j naming the path', (bad, path) => {
    const batch = [userMessage('fine'), bad];
    expect(() => validateMessages(batch)).toThrow(expect.objectContaining({ path }));
  });

  it('says where the bad character is and what it is', () => {
    expect(unstorableTextReason('ab\u0000')).toMatch(/NUL character \(\\u0000\) at offset 2/);
    expect(unstorableTextReason('a\uDC00')).toMatch(/lone surrogate \(\\uDC00\) at offset 1/);
    expect(unstorableTextReason('a\uD83D')).toMatch(/lone surrogate \(\\uD83D\) at offset 1/);
    expect(unstorableTextReason('😀 fine')).toBeNull();
  });

  it('still reads stored messages holding such text (only writes are refused)', () => {
    const stored = { role: 'user', parts: [{ type: 'text', text: 'old\u0000' }] };
    expect(decodeMessage(stored).parts[0]!.text).toBe('old\u0000');
    expect(decodeMessages([stored])).toHaveLength(1);
    expect(() => validateMessages([stored])).toThrow(
      expect.objectContaining({ path: 'messages[0].parts[0].text' }),
    );
  });
});
