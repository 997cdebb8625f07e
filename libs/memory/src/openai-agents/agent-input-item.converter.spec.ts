import type { AgentInputItem } from '@openai/agents';
import fc from 'fast-check';
import { validateMessages, type Message } from '../core';
import { OPENAI_AGENTS_KEY, fromAgentInputItems, toAgentInputItems } from '.';

/** A save and a read: the JSON a store keeps, validated as every save does. */
function throughStore(messages: Message[]): Message[] {
  return validateMessages(JSON.parse(JSON.stringify(messages)) as unknown[]);
}

const text = fc.string({ maxLength: 12 });
const id = fc.string({ minLength: 1, maxLength: 8 }).map((s) => `id_${s}`);
const providerData = fc.option(
  fc.dictionary(
    fc.constantFrom('a', 'b', 'encryptedContent', 'model'),
    fc.jsonValue({ maxDepth: 2 }),
    {
      maxKeys: 2,
    },
  ),
  { nil: undefined },
);
const image = fc.oneof(
  fc.webUrl(),
  fc.base64String({ minLength: 4, maxLength: 12 }).map((data) => `data:image/png;base64,${data}`),
);

const userContent = fc.oneof(
  text,
  fc.array(
    fc.oneof(
      fc.record({ type: fc.constant('input_text'), text }),
      fc.record(
        { type: fc.constant('input_image'), image, detail: fc.constantFrom('low', 'high') },
        { requiredKeys: ['type', 'image'] },
      ),
      fc.record({ type: fc.constant('input_file'), file: fc.webUrl(), filename: text }),
    ),
    { maxLength: 3 },
  ),
);

/** Items as the SDK and its model providers produce them, with the fields our model lacks. */
const item: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record(
    {
      type: fc.constant('message'),
      role: fc.constant('user'),
      content: userContent,
      id,
      providerData,
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record({ type: fc.constant('message'), role: fc.constant('system'), content: text }),
  fc.record(
    {
      id,
      type: fc.constant('message'),
      role: fc.constant('assistant'),
      status: fc.constantFrom('completed', 'incomplete'),
      content: fc.array(
        fc.oneof(
          fc.record(
            { type: fc.constant('output_text'), text, providerData },
            { requiredKeys: ['type', 'text'] },
          ),
          fc.record({ type: fc.constant('refusal'), refusal: text }),
        ),
        { maxLength: 2 },
      ),
      providerData,
    },
    { requiredKeys: ['role', 'status', 'content'] },
  ),
  fc.record(
    {
      id,
      type: fc.constant('reasoning'),
      content: fc.array(fc.record({ type: fc.constant('input_text'), text }), { maxLength: 2 }),
      rawContent: fc.array(fc.record({ type: fc.constant('reasoning_text'), text }), {
        maxLength: 1,
      }),
      providerData: fc.record({ encryptedContent: fc.base64String({ maxLength: 40 }) }),
    },
    { requiredKeys: ['type', 'content'] },
  ),
  fc.record(
    {
      type: fc.constant('function_call'),
      callId: id,
      name: fc.constantFrom('weather', 'search'),
      arguments: fc.json({ maxDepth: 1 }),
      id,
      status: fc.constant('completed'),
      providerData,
    },
    { requiredKeys: ['type', 'callId', 'name', 'arguments'] },
  ),
  fc.record({
    type: fc.constant('function_call_result'),
    name: fc.constantFrom('weather', 'search'),
    callId: id,
    status: fc.constantFrom('completed', 'incomplete'),
    output: fc.oneof(
      text,
      fc.record({ type: fc.constant('text'), text }),
      fc.record({ type: fc.constant('image'), image }),
      fc.array(fc.record({ type: fc.constant('input_text'), text }), { maxLength: 2 }),
    ),
  }),
  fc.record({
    type: fc.constant('hosted_tool_call'),
    name: text,
    arguments: text,
    status: text,
    id,
  }),
  fc.record({
    type: fc.constant('compaction'),
    encrypted_content: fc.base64String({ maxLength: 30 }),
  }),
  fc.record({ type: fc.constant('unknown'), id, providerData }),
);

describe('Agents SDK items <-> messages', () => {
  it('items survive a store round trip byte-equal (property)', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (generated) => {
        const items = JSON.parse(JSON.stringify(generated)) as AgentInputItem[];
        const back = toAgentInputItems(throughStore(fromAgentInputItems(items)));
        expect(JSON.stringify(back)).toBe(JSON.stringify(items));
      }),
      { numRuns: 300 },
    );
  });

  it('maps what the model holds: a turn with reasoning, a call, a failed result and an answer', () => {
    const items: AgentInputItem[] = [
      { type: 'message', role: 'user', content: 'Weather in Oslo?' },
      {
        type: 'reasoning',
        id: 'rs_1',
        content: [{ type: 'input_text', text: 'Need the weather tool.' }],
        providerData: { encryptedContent: 'gAAAA...' },
      },
      {
        type: 'function_call',
        callId: 'call_1',
        name: 'weather',
        arguments: '{"city":"Oslo"}',
      },
      {
        type: 'function_call_result',
        name: 'weather',
        callId: 'call_1',
        status: 'incomplete',
        output: { type: 'text', text: 'service down' },
      },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'I could not check.' }],
      },
    ];
    const messages = fromAgentInputItems(items);
    expect(messages.map(({ providerData: _p, ...rest }) => rest)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        parts: [{ type: 'reasoning', text: 'Need the weather tool.' }],
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
        toolError: true,
        parts: [{ type: 'text', text: 'service down' }],
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'I could not check.' }] },
    ]);
    // Only what the model lacks goes to providerData: the encrypted reasoning and its id.
    expect(messages[1]!.providerData?.[OPENAI_AGENTS_KEY]).toMatchObject({
      items: [
        {
          kind: 'reasoning',
          residual: { set: { id: 'rs_1', providerData: { encryptedContent: 'gAAAA...' } } },
        },
        { kind: 'function_call' },
      ],
    });
    expect(messages[2]!.providerData).toBeUndefined();
    expect(messages[3]!.providerData).toBeUndefined();
    expect(JSON.stringify(toAgentInputItems(throughStore(messages)))).toBe(JSON.stringify(items));
  });

  it('our messages survive a trip through items unchanged (property)', () => {
    const part = fc.oneof(
      text.map((t) => ({ type: 'text' as const, text: t })),
      fc.record(
        {
          type: fc.constantFrom('reasoning' as const, 'redacted_reasoning' as const),
          text,
          signature: text,
        },
        { requiredKeys: ['type', 'text'] },
      ),
      fc.webUrl().map((imageUrl) => ({ type: 'image_url' as const, imageUrl })),
    );
    const toolCall = fc.record({
      id,
      type: fc.constant('function' as const),
      function: fc.record({ name: fc.constantFrom('weather', 'search'), arguments: fc.json() }),
    });
    const message: fc.Arbitrary<Message> = fc.oneof(
      fc.record({
        role: fc.constant('user' as const),
        parts: fc.array(
          part.filter((p) => p.type !== 'reasoning' && p.type !== 'redacted_reasoning'),
          { maxLength: 3 },
        ),
      }),
      fc.record({
        role: fc.constant('system' as const),
        parts: fc.array(
          text.map((t) => ({ type: 'text' as const, text: t })),
          { minLength: 1, maxLength: 1 },
        ),
      }),
      fc.record(
        {
          role: fc.constant('assistant' as const),
          parts: fc.array(part, { maxLength: 4 }),
          toolCalls: fc.array(toolCall, { minLength: 1, maxLength: 2 }),
        },
        { requiredKeys: ['role', 'parts'] },
      ),
      fc.record(
        {
          role: fc.constant('tool' as const),
          toolCallId: id,
          parts: fc.array(
            part.filter((p) => p.type === 'text'),
            { maxLength: 2 },
          ),
          toolError: fc.constant(true),
          name: fc.constant('lookup'),
        },
        { requiredKeys: ['role', 'toolCallId', 'parts'] },
      ),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (messages) => {
        const canonical = throughStore(messages);
        const items = JSON.parse(JSON.stringify(toAgentInputItems(canonical))) as AgentInputItem[];
        const back = throughStore(fromAgentInputItems(items));
        // Two assistant messages in a row may come back as one: compare item by item then.
        expect(JSON.stringify(toAgentInputItems(back))).toBe(JSON.stringify(items));
        if (
          !canonical.some(
            (m, i) => m.role === 'assistant' && canonical[i + 1]?.role === 'assistant',
          )
        ) {
          expect(back).toEqual(canonical);
        }
      }),
      { numRuns: 300 },
    );
  });
});
