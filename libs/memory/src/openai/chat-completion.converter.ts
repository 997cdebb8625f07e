import { InvalidMessageError } from '../core/errors';
import { imagePartFromUrl, imagePartToUrl } from '../core/media-part.codec';
import type { ContentPart, Message, ToolCall } from '../core/message';
import { asJsonObject, definedFields, readSection } from '../core/provider-data-section';
import { toolArgumentsText } from '../core/tool-arguments';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessage,
  ChatCompletionToolCall,
} from './chat-completion.types';

/** What a failed tool result's text starts with on the wire, where no field says "failed". */
export const TOOL_ERROR_PREFIX = 'Error: ';

/** The wire message fields the converters map; any other field travels in `providerData.chatCompletions`. */
const MAPPED_MESSAGE_KEYS = new Set(['role', 'content', 'name', 'tool_calls', 'tool_call_id']);
/** The same, less `role`: a `developer` message keeps its role. */
const MAPPED_EXCEPT_ROLE = new Set(['content', 'name', 'tool_calls', 'tool_call_id']);
/** The key of `providerData` (of a message or a part) holding the wire fields the model has no place for. */
export const CHAT_COMPLETIONS_KEY = 'chatCompletions';
/** A content part the model has no type for (audio, file, refusal) is kept whole as `providerData.chatCompletions.part` of a text part. */
const UNMAPPED_PART_KEY = 'part';

/**
 * Our messages as OpenAI Chat Completions messages, for `chat.completions.create({ messages })`.
 *
 * A message with one non-empty text part is sent with string content, others as a content-part
 * array (`image_base64` as a `data:` URL); reasoning parts are left out (the API has no field for
 * them); a failed tool result's text starts with {@link TOOL_ERROR_PREFIX}; the fields kept in
 * `providerData.chatCompletions` (see {@link CHAT_COMPLETIONS_KEY}) are sent as the wire message's
 * (or part's) own fields, while other adapters' `providerData` stays home, so
 * {@link fromChatCompletionMessages} gives back the same messages.
 * @throws InvalidMessageError when a message cannot be expressed (a tool message without
 *   `toolCallId`, an `image_base64` part without its MIME type), naming `messages[i]…`.
 */
export function toChatCompletionMessages(messages: readonly Message[]): ChatCompletionMessage[] {
  return messages.map((message, index) => toChatCompletionMessage(message, `messages[${index}]`));
}

/** One message of {@link toChatCompletionMessages}; `path` names it in errors. */
export function toChatCompletionMessage(message: Message, path = 'message'): ChatCompletionMessage {
  const kept = ownData(message.providerData);
  const wire: Record<string, unknown> = { ...definedFields(kept, MAPPED_MESSAGE_KEYS) };
  const developer = message.role === 'system' && kept.role === 'developer';
  wire.role = developer ? 'developer' : message.role;
  if (message.name !== undefined) wire.name = message.name;

  const parts = message.parts.flatMap((part, index) => partToWire(part, `${path}.parts[${index}]`));
  if (message.role === 'tool') {
    if (!message.toolCallId) {
      throw new InvalidMessageError(
        `${path}.toolCallId`,
        'a tool message must name the tool call it answers',
      );
    }
    if (message.toolError) markFailed(parts);
    wire.content = contentOf(parts, '');
    wire.tool_call_id = message.toolCallId;
  } else if (message.role === 'assistant') {
    const calls = message.toolCalls ?? [];
    wire.content = contentOf(parts, calls.length > 0 ? null : '');
    if (calls.length > 0) wire.tool_calls = calls.map(toolCallToWire);
  } else {
    wire.content = contentOf(parts, '');
  }
  return wire as unknown as ChatCompletionMessage;
}

/**
 * OpenAI Chat Completions messages (a request's `messages`, or answers' `choices[0].message`) as
 * our messages, ready to `save`. `developer` messages become `system` ones remembering their role;
 * a tool message whose text starts with {@link TOOL_ERROR_PREFIX} is a failed result; fields the
 * model has no place for (`refusal`, `audio`, `annotations`, a server's `reasoning_content`, an
 * image's `detail`) are kept in `providerData.chatCompletions`, and content parts it has no type
 * for (audio, files, refusals) as a text part's `providerData.chatCompletions.part`, so {@link toChatCompletionMessages} sends
 * them again as they came.
 * @throws InvalidMessageError naming `messages[i]…` for a message that is not one (unknown role,
 *   a tool message without `tool_call_id`, a tool call without id or function name).
 */
export function fromChatCompletionMessages(messages: readonly unknown[]): Message[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError('messages', 'must be an array of chat completion messages');
  }
  return messages.map((message, index) => fromChatCompletionMessage(message, `messages[${index}]`));
}

/** One message of {@link fromChatCompletionMessages}; `path` names it in errors. */
export function fromChatCompletionMessage(value: unknown, path = 'message'): Message {
  const wire = asRecord(value, path);
  const role = wire.role;
  if (
    role !== 'system' &&
    role !== 'developer' &&
    role !== 'user' &&
    role !== 'assistant' &&
    role !== 'tool'
  ) {
    throw new InvalidMessageError(
      `${path}.role`,
      'must be one of system, developer, user, assistant, tool',
    );
  }
  const message: Message = {
    role: role === 'developer' ? 'system' : role,
    parts: contentToParts(wire.content, `${path}.content`),
  };

  if (role === 'tool') {
    if (typeof wire.tool_call_id !== 'string' || wire.tool_call_id === '') {
      throw new InvalidMessageError(
        `${path}.tool_call_id`,
        'a tool message must name the tool call it answers',
      );
    }
    message.toolCallId = wire.tool_call_id;
    if (readFailed(message.parts)) message.toolError = true;
  }
  if (role === 'assistant' && wire.tool_calls !== undefined && wire.tool_calls !== null) {
    if (!Array.isArray(wire.tool_calls)) {
      throw new InvalidMessageError(`${path}.tool_calls`, 'must be an array');
    }
    const calls = wire.tool_calls.map((call, index) =>
      toolCallFromWire(call, `${path}.tool_calls[${index}]`),
    );
    if (calls.length > 0) message.toolCalls = calls;
  }
  if (typeof wire.name === 'string' && wire.name !== '') message.name = wire.name;

  const providerData = definedFields(
    role === 'developer' ? { ...wire, role: 'developer' } : wire,
    role === 'developer' ? MAPPED_EXCEPT_ROLE : MAPPED_MESSAGE_KEYS,
  );
  if (providerData) message.providerData = { [CHAT_COMPLETIONS_KEY]: providerData };
  return message;
}

/** String content for exactly one non-empty plain text part, else a part list; `empty` for none. */
function contentOf(
  parts: Record<string, unknown>[],
  empty: string | null,
): string | ChatCompletionContentPart[] | null {
  if (parts.length === 0) return empty;
  const [only] = parts;
  if (
    parts.length === 1 &&
    only.type === 'text' &&
    Object.keys(only).length === 2 &&
    typeof only.text === 'string' &&
    only.text !== ''
  ) {
    return only.text;
  }
  return parts as unknown as ChatCompletionContentPart[];
}

function partToWire(part: ContentPart, path: string): Record<string, unknown>[] {
  const { [UNMAPPED_PART_KEY]: unmapped, ...extra } = ownData(part.providerData);
  if (part.type === 'text' && unmapped !== undefined) return [unmapped as Record<string, unknown>];
  switch (part.type) {
    case 'text':
      return [{ ...extra, type: 'text', text: part.text ?? '' }];
    case 'image_url':
    case 'image_base64': {
      const { image_url: imageExtra, ...rest } = extra;
      return [
        {
          ...rest,
          type: 'image_url',
          image_url: { ...asJsonObject(imageExtra), url: imageUrlOf(part, path) },
        },
      ];
    }
    case 'reasoning':
    case 'redacted_reasoning':
      return [];
  }
}

function imageUrlOf(part: ContentPart, path: string): string {
  if (part.type === 'image_url') {
    if (!part.imageUrl) {
      throw new InvalidMessageError(`${path}.imageUrl`, 'an image_url part needs the URL');
    }
  } else if (!part.imageBase64) {
    throw new InvalidMessageError(
      `${path}.imageBase64`,
      'an image_base64 part needs the image data',
    );
  } else if (!part.mimeType) {
    // The API refuses an image without its type, so no default type is sent in its place.
    throw new InvalidMessageError(
      `${path}.mimeType`,
      'an image_base64 part needs its MIME type, such as image/png',
    );
  }
  return imagePartToUrl(part);
}

function contentToParts(content: unknown, path: string): ContentPart[] {
  if (content === undefined || content === null || content === '') return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    throw new InvalidMessageError(path, 'must be text, null or an array of content parts');
  }
  return content.map((part, index) => partFromWire(part, `${path}[${index}]`));
}

function partFromWire(value: unknown, path: string): ContentPart {
  const wire = asRecord(value, path);
  if (wire.type === 'text' && typeof wire.text === 'string') {
    const { type: _type, text, ...extra } = wire;
    return withProviderData({ type: 'text', text: text as string }, extra);
  }
  const image = wire.type === 'image_url' ? asJsonObject(wire.image_url) : undefined;
  if (image && typeof image.url === 'string' && image.url !== '') {
    const { type: _type, image_url: _image, ...extra } = wire;
    const { url, ...imageExtra } = image;
    if (Object.keys(imageExtra).length > 0) extra.image_url = imageExtra;
    return withProviderData(imagePartFromUrl(url as string, `${path}.image_url.url`), extra);
  }
  return {
    type: 'text',
    text: '',
    providerData: { [CHAT_COMPLETIONS_KEY]: { [UNMAPPED_PART_KEY]: wire } },
  };
}

function withProviderData(part: ContentPart, extra: Record<string, unknown>): ContentPart {
  const kept = definedFields(extra);
  if (kept) part.providerData = { [CHAT_COMPLETIONS_KEY]: kept };
  return part;
}

/**
 * Prefixes the first text the model reads with {@link TOOL_ERROR_PREFIX}. A failed result that
 * starts with no text part gets a text part of its own, which reads back as an empty text part.
 */
function markFailed(parts: Record<string, unknown>[]): void {
  const first = parts[0];
  if (first && first.type === 'text' && typeof first.text === 'string') {
    parts[0] = { ...first, text: `${TOOL_ERROR_PREFIX}${first.text}` };
  } else {
    parts.unshift({ type: 'text', text: TOOL_ERROR_PREFIX });
  }
}

/** Strips {@link TOOL_ERROR_PREFIX} from the first text part; true when it was there. */
function readFailed(parts: ContentPart[]): boolean {
  const first = parts[0];
  if (!first || first.type !== 'text' || !first.text?.startsWith(TOOL_ERROR_PREFIX)) return false;
  if (ownData(first.providerData)[UNMAPPED_PART_KEY] !== undefined) return false;
  first.text = first.text.slice(TOOL_ERROR_PREFIX.length);
  return true;
}

function toolCallToWire(call: ToolCall): ChatCompletionToolCall {
  return {
    id: call.id,
    type: 'function',
    function: { name: call.function.name, arguments: call.function.arguments },
  };
}

function toolCallFromWire(value: unknown, path: string): ToolCall {
  const call = asRecord(value, path);
  if (typeof call.id !== 'string' || call.id === '') {
    throw new InvalidMessageError(`${path}.id`, 'a tool call needs an id');
  }
  const fn = asRecord(call.function, `${path}.function`);
  if (typeof fn.name !== 'string' || fn.name === '') {
    throw new InvalidMessageError(`${path}.function.name`, 'a tool call needs a function name');
  }
  return {
    id: call.id,
    type: 'function',
    function: { name: fn.name, arguments: toolArgumentsText(fn.arguments) },
  };
}

/** The wire fields this converter kept in `providerData` (other adapters' keys aside). */
function ownData(providerData: Record<string, unknown> | undefined): Record<string, unknown> {
  return readSection(providerData, CHAT_COMPLETIONS_KEY);
}

function asRecord(value: unknown, path: string): Record<string, unknown> {
  const record = asJsonObject(value);
  if (!record) throw new InvalidMessageError(path, 'must be an object');
  return record;
}
