import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';
import { validateMessages } from '../core';
import { fromBaseMessages, toBaseMessages } from '.';

/** What a LangChain user sees of a message (its class and public fields). */
export function view(message: BaseMessage): Record<string, unknown> {
  const fields = message as unknown as Record<string, unknown>;
  const seen: Record<string, unknown> = { type: message.getType() };
  for (const key of [
    'content',
    'name',
    'id',
    'additional_kwargs',
    'response_metadata',
    'tool_calls',
    'invalid_tool_calls',
    'usage_metadata',
    'tool_call_id',
    'status',
    'artifact',
  ]) {
    if (fields[key] !== undefined) seen[key] = fields[key];
  }
  if (Array.isArray(seen.tool_calls) && seen.tool_calls.length === 0) delete seen.tool_calls;
  if (Array.isArray(seen.invalid_tool_calls) && seen.invalid_tool_calls.length === 0) {
    delete seen.invalid_tool_calls;
  }
  return seen;
}

const json = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)));
const text = fc.string({ maxLength: 16 });
const kwargs = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), json, { maxKeys: 2 });
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('text'), text, cache_control: fc.constant({ type: 'ephemeral' }) }),
  fc.record({ type: fc.constant('image_url'), image_url: fc.webUrl() }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record({ url: fc.webUrl(), detail: fc.constantFrom('low', 'high') }),
  }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.base64String({ minLength: 4 }).map((data) => `data:image/png;base64,${data}`),
  }),
  fc.record({ type: fc.constant('reasoning'), reasoning: text }),
  fc.record({ type: fc.constant('image'), url: fc.webUrl() }),
  fc.record({
    type: fc.constant('file'),
    data: fc.base64String({ minLength: 4 }),
    mimeType: fc.constant('application/pdf'),
  }),
);
const content = fc.oneof(text, fc.array(block, { maxLength: 3 }));
const common = {
  content,
  name: fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }),
  id: fc.option(fc.uuid(), { nil: undefined }),
  additional_kwargs: kwargs,
  response_metadata: kwargs,
};
// A call built by hand may lack its `type` (LangChain does not add one): it comes back without.
const toolCall = fc.record(
  {
    id: fc.uuid(),
    name: fc.string({ minLength: 1, maxLength: 8 }),
    args: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), json, { maxKeys: 3 }),
    type: fc.constant('tool_call' as const),
  },
  { requiredKeys: ['id', 'name', 'args'] },
);

const baseMessage: fc.Arbitrary<BaseMessage> = fc.oneof(
  fc.record(common).map((fields) => new HumanMessage(fields as never)),
  fc.record(common).map((fields) => new SystemMessage(fields as never)),
  fc
    .record({ ...common, tool_calls: fc.array(toolCall, { maxLength: 2 }) })
    .map((fields) => new AIMessage(fields as never)),
  fc
    .record({
      ...common,
      tool_call_id: fc.uuid(),
      status: fc.option(fc.constantFrom('success' as const, 'error' as const), { nil: undefined }),
      artifact: fc.option(json, { nil: undefined }),
    })
    .map((fields) => new ToolMessage(fields as never)),
);

describe('LangChain message converters', () => {
  it('give back every message through a store (property)', () => {
    fc.assert(
      fc.property(fc.array(baseMessage, { maxLength: 6 }), (messages) => {
        const stored = validateMessages(
          JSON.parse(JSON.stringify(fromBaseMessages(messages))) as unknown[],
        );
        expect(toBaseMessages(stored).map(view)).toEqual(messages.map(view));
      }),
      { numRuns: 300 },
    );
  });

  it('store tool calls and failed tool results in our own fields', () => {
    const [call, result] = fromBaseMessages([
      new AIMessage({
        content: '',
        tool_calls: [{ id: 'c1', name: 'weather', args: { city: 'Oslo' }, type: 'tool_call' }],
      }),
      new ToolMessage({ content: 'down', tool_call_id: 'c1', status: 'error' }),
    ]);
    expect(call).toEqual({
      role: 'assistant',
      parts: [],
      toolCalls: [
        { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
      ],
    });
    expect(result).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      toolError: true,
      parts: [{ type: 'text', text: 'down' }],
    });
  });
});
