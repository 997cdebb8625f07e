import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { isDeepStrictEqual } from 'node:util';
import { InvalidMessageError } from '../core/errors';
import { imagePartFromUrl, imagePartToUrl } from '../core/media-part.codec';
import type { ContentPart, Message, ToolCall } from '../core/message';
import { mergeSection, readSection } from '../core/provider-data-section';
import { parseToolArguments } from '../core/tool-arguments';

/** The key of `providerData` (of a message or a part) holding what LangChain carries beyond the model. */
export const LANGCHAIN_KEY = 'langchain';

type Json = Record<string, unknown>;
type Block = Json & { type: string };

/** Message fields kept as they are (when not empty) in `providerData.langchain`. */
const KEPT_FIELDS = [
  'id',
  'additional_kwargs',
  'response_metadata',
  'usage_metadata',
  'invalid_tool_calls',
  'artifact',
] as const;

/** Fields LangChain fills with `{}` or `[]` when not given: those are not kept. */
const DEFAULTED_FIELDS = new Set<string>([
  'additional_kwargs',
  'response_metadata',
  'invalid_tool_calls',
]);

/**
 * LangChain messages (`HumanMessage`, `AIMessage` with `tool_calls`, `ToolMessage` with
 * `status`, `SystemMessage`) as our messages: string content or content blocks (text, images as
 * `image_url` or standard `image` blocks, reasoning), tool calls with their `args` as JSON text, a
 * `ToolMessage` with `status: "error"` as a failed result. Fields the model lacks (`id`,
 * `additional_kwargs`, `response_metadata`, `usage_metadata`, `invalid_tool_calls`, `artifact`,
 * other blocks) are kept in `providerData.langchain`, so {@link toBaseMessages} gives the same
 * messages back.
 * @throws InvalidMessageError for a message type the model has no role for (`function`, `remove`).
 */
export function fromBaseMessages(messages: readonly BaseMessage[]): Message[] {
  return messages.map((message, index) => fromBaseMessage(message, `messages[${index}]`));
}

/** Our messages as LangChain messages; the inverse of {@link fromBaseMessages}. */
export function toBaseMessages(messages: readonly Message[]): BaseMessage[] {
  return messages.map(toBaseMessage);
}

function fromBaseMessage(message: BaseMessage, path: string): Message {
  const type = message.getType();
  const role =
    type === 'human'
      ? 'user'
      : type === 'ai'
        ? 'assistant'
        : type === 'system'
          ? 'system'
          : type === 'tool'
            ? 'tool'
            : undefined;
  if (!role) {
    throw new InvalidMessageError(`${path}.type`, `a ${type} message has no role in the model`);
  }
  const data: Json = {};
  const content = message.content as string | Block[];
  const parts =
    typeof content === 'string'
      ? stringParts(content)
      : content.map((block, at) => partFromBlock(block, `${path}.content[${at}]`));
  if (Array.isArray(content) && (parts.length === 0 || isPlainString(parts))) {
    data.contentArray = true;
  }
  const out: Message = { role, parts };
  if (typeof message.name === 'string' && message.name !== '') out.name = message.name;

  const fields = message as unknown as Json;
  for (const field of KEPT_FIELDS) {
    const value = fields[field];
    if (value === undefined || (DEFAULTED_FIELDS.has(field) && isEmpty(value))) continue;
    data[field] = value;
  }
  if (message instanceof AIMessage || type === 'ai') {
    const calls =
      (fields.tool_calls as Array<{ id?: string; name: string; args: unknown; type?: string }>) ??
      [];
    if (calls.length > 0) {
      out.toolCalls = calls.map((call, index): ToolCall => ({
        id: call.id || `${path}.tool_calls[${index}]`,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      }));
      if (calls.some((call) => !call.id)) data.unnamedCalls = calls.map((call) => !call.id);
      // A call built without its `type` (LangChain does not add one) comes back without it.
      if (calls.some((call) => call.type === undefined)) {
        data.untypedCalls = calls.map((call) => call.type === undefined);
      }
    }
  }
  if (type === 'tool') {
    out.toolCallId = fields.tool_call_id as string;
    if (fields.status === 'error') out.toolError = true;
    else if (fields.status === 'success') data.status = 'success';
  }
  mergeSection(out, LANGCHAIN_KEY, data);
  return out;
}

function toBaseMessage(message: Message): BaseMessage {
  const data = ownData(message.providerData);
  const fields: Json = { content: contentOf(message.parts, data) };
  if (message.name !== undefined) fields.name = message.name;
  for (const field of KEPT_FIELDS) if (data[field] !== undefined) fields[field] = data[field];
  switch (message.role) {
    case 'system':
      return new SystemMessage(fields as never);
    case 'user':
      return new HumanMessage(fields as never);
    case 'assistant': {
      const unnamed = Array.isArray(data.unnamedCalls) ? (data.unnamedCalls as boolean[]) : [];
      const untyped = Array.isArray(data.untypedCalls) ? (data.untypedCalls as boolean[]) : [];
      fields.tool_calls = (message.toolCalls ?? []).map((call, index) => {
        const toolCall: Json = {
          name: call.function.name,
          args: parseToolArguments(call.function.arguments),
        };
        if (!untyped[index]) toolCall.type = 'tool_call';
        if (!unnamed[index]) toolCall.id = call.id;
        return toolCall;
      });
      return new AIMessage(fields as never);
    }
    case 'tool':
      fields.tool_call_id = message.toolCallId ?? '';
      if (message.toolError) fields.status = 'error';
      else if (data.status === 'success') fields.status = 'success';
      return new ToolMessage(fields as never);
  }
}

function stringParts(content: string): ContentPart[] {
  return content === '' ? [] : [{ type: 'text', text: content }];
}

function contentOf(parts: ContentPart[], data: Json): string | Block[] {
  if (parts.length === 0 && data.contentArray !== true) return '';
  if (data.contentArray !== true && isPlainString(parts)) return parts[0]!.text ?? '';
  return parts.map(partToBlock);
}

function isPlainString(parts: ContentPart[]): boolean {
  return (
    parts.length === 1 &&
    parts[0]!.type === 'text' &&
    parts[0]!.text !== '' &&
    parts[0]!.providerData === undefined
  );
}

function partFromBlock(block: Block, path: string): ContentPart {
  const { type, ...rest } = block;
  if (type === 'text' && typeof rest.text === 'string') {
    const { text, ...extra } = rest;
    return withData({ type: 'text', text: text as string }, extra);
  }
  if (type === 'reasoning' && typeof rest.reasoning === 'string') {
    const { reasoning, ...extra } = rest;
    return withData({ type: 'reasoning', text: reasoning as string }, extra);
  }
  if (type === 'image_url') {
    const image = rest.image_url;
    const url = typeof image === 'string' ? image : (image as { url?: unknown } | undefined)?.url;
    if (typeof url === 'string' && url !== '') {
      const part = imagePartFromUrl(url, `${path}.image_url`);
      // Kept whole only when it is not the block this part is written back as.
      return isDeepStrictEqual(partToBlock(part), block) ? part : withData(part, { block });
    }
  }
  // Anything else (standard image/file/audio blocks, provider blocks) is kept whole, in place.
  return withData({ type: 'text', text: '' }, { block });
}

function partToBlock(part: ContentPart): Block {
  const data = ownData(part.providerData);
  if (data.block !== undefined) return data.block as Block;
  switch (part.type) {
    case 'text':
      return { ...data, type: 'text', text: part.text ?? '' };
    case 'reasoning':
    case 'redacted_reasoning':
      return { ...data, type: 'reasoning', reasoning: part.text ?? '' };
    case 'image_url':
    case 'image_base64':
      return { type: 'image_url', image_url: { url: imagePartToUrl(part) } };
  }
}

/** Keeps `extra` (when it has a field) in the part's `providerData.langchain`. */
function withData(part: ContentPart, extra: Json): ContentPart {
  return mergeSection(part, LANGCHAIN_KEY, extra);
}

function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

function ownData(providerData: Record<string, unknown> | undefined): Json {
  return readSection(providerData, LANGCHAIN_KEY);
}
