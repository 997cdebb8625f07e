import { InvalidMessageError } from './errors';
import { assertStorableProviderData, readProviderData } from './provider-data';
import { unstorableTextReason } from './storable-text';
import {
  CONTENT_PART_TYPES,
  ROLES,
  type ContentPart,
  type ContentPartType,
  type Message,
  type Role,
  type ToolCall,
} from './message';

/** Most content parts one message may hold when it is saved. */
export const MAX_MESSAGE_PARTS = 1000;
/** Most tool calls one assistant message may hold when it is saved. */
export const MAX_MESSAGE_TOOL_CALLS = 128;

/** How many items a message's lists may hold; reading what is stored applies none. */
interface MessageLimits {
  parts: number;
  toolCalls: number;
}

const SAVE_LIMITS: MessageLimits = { parts: MAX_MESSAGE_PARTS, toolCalls: MAX_MESSAGE_TOOL_CALLS };
const NO_LIMITS: MessageLimits = { parts: Infinity, toolCalls: Infinity };

/**
 * Reads a message from its stored or submitted JSON form and returns it in our canonical camelCase
 * shape, or throws {@link InvalidMessageError} naming the offending path.
 *
 * Keys match case-insensitively and `null` stands for an empty list or an absent field, so
 * messages written by Phero (Go field names such as `Role`, `ToolCallID`, `MIMEType`) load as
 * well; an object naming one field twice (`role` and `ROLE`) is refused, since it reads two ways.
 * Unknown keys are ignored. The result is a fresh object: later changes to `value` do not
 * reach it.
 *
 * @param path where the message sits, for error messages (such as `messages[3]`).
 */
export function decodeMessage(value: unknown, path = 'message'): Message {
  return decodeWithin(value, path, NO_LIMITS);
}

/** The fields a message has (lower case: names match in any case, as Phero's Go decoder reads them). */
const MESSAGE_FIELDS: ReadonlySet<string> = new Set([
  'role',
  'parts',
  'toolcalls',
  'toolcallid',
  'toolerror',
  'name',
  'providerdata',
]);

function decodeWithin(value: unknown, path: string, limits: MessageLimits): Message {
  const fields = readObject(value, path);
  assertKnownShape(value as Record<string, unknown>, fields, path);
  const role = fields.get('role');
  if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
    throw new InvalidMessageError(`${path}.role`, `must be one of ${ROLES.join(', ')}`);
  }
  const message: Message = {
    role: role as Role,
    parts: readList(fields.get('parts'), `${path}.parts`, decodePart, limits.parts, 'parts'),
  };

  const toolCalls = readList(
    fields.get('toolcalls'),
    `${path}.toolCalls`,
    decodeToolCall,
    limits.toolCalls,
    'tool calls',
  );
  if (toolCalls.length > 0) {
    if (role !== 'assistant') {
      throw new InvalidMessageError(`${path}.toolCalls`, 'only assistant messages call tools');
    }
    message.toolCalls = toolCalls;
  }

  const toolCallId = readOptionalString(fields.get('toolcallid'), `${path}.toolCallId`);
  const toolError = fields.get('toolerror');
  if (role === 'tool') {
    if (!toolCallId) {
      throw new InvalidMessageError(
        `${path}.toolCallId`,
        'a tool message must name the tool call it answers',
      );
    }
    message.toolCallId = toolCallId;
    if (toolError !== undefined && toolError !== null && typeof toolError !== 'boolean') {
      throw new InvalidMessageError(`${path}.toolError`, 'must be a boolean');
    }
    if (toolError === true) message.toolError = true;
  } else {
    if (toolCallId) {
      throw new InvalidMessageError(`${path}.toolCallId`, 'only tool messages answer a tool call');
    }
    if (toolError === true) {
      throw new InvalidMessageError(`${path}.toolError`, 'only tool messages report a tool error');
    }
  }

  const name = readOptionalString(fields.get('name'), `${path}.name`);
  if (name) message.name = name;
  const providerData = readProviderData(fields.get('providerdata'), `${path}.providerData`);
  if (providerData) message.providerData = providerData;
  return message;
}

/**
 * Checks that `value` is a valid message (ours or Phero's shape) that every store can keep, and
 * returns it in canonical form. Beyond {@link decodeMessage}, no string of it (text, signature,
 * image URL or data, MIME type, tool call id, name and arguments, tool call id, name) may hold a
 * NUL character or a lone surrogate (see `unstorableTextReason`), it holds at most
 * {@link MAX_MESSAGE_PARTS} parts and {@link MAX_MESSAGE_TOOL_CALLS} tool calls (checked before
 * any of them is read), and `providerData` must be JSON within `MAX_PROVIDER_DATA_BYTES` and
 * `MAX_PROVIDER_DATA_DEPTH`. Every `save` runs this.
 * @throws InvalidMessageError naming the offending path, such as `message.parts[0].text`.
 */
export function validateMessage(value: unknown, path = 'message'): Message {
  const message = decodeWithin(value, path, SAVE_LIMITS);
  assertStorableStrings(message, path);
  return message;
}

/** {@link validateMessage} on a batch, before anything is written; paths read `messages[3].parts[0].type`. */
export function validateMessages(values: readonly unknown[], path = 'messages'): Message[] {
  if (!Array.isArray(values)) throw new InvalidMessageError(path, 'must be an array of messages');
  return values.map((value, index) => validateMessage(value, `${path}[${index}]`));
}

/**
 * Reads a batch of stored or submitted messages ({@link decodeMessage} on each); paths read
 * `messages[3].parts[0].type`. Lenient on text, so data stored before the text rules still reads;
 * writes use {@link validateMessages}.
 */
export function decodeMessages(values: readonly unknown[], path = 'messages'): Message[] {
  if (!Array.isArray(values)) throw new InvalidMessageError(path, 'must be an array of messages');
  return values.map((value, index) => decodeMessage(value, `${path}[${index}]`));
}

/**
 * Throws when a string of `message` cannot be stored, naming the first (per part: text, signature,
 * image URL, image data, MIME type; per tool call: id, function name, arguments; then the tool
 * call id and the name). Every save runs this on every message, so a string's path is built only
 * for the error.
 */
function assertStorableStrings(message: Message, path: string): void {
  message.parts.forEach((part, i) => {
    for (const field of PART_STRINGS) {
      assertStorable(part[field], () => `${path}.parts[${i}].${field}`);
    }
    if (part.providerData) {
      assertStorableProviderData(part.providerData, `${path}.parts[${i}].providerData`);
    }
  });
  message.toolCalls?.forEach((call, i) => {
    assertStorable(call.id, () => `${path}.toolCalls[${i}].id`);
    assertStorable(call.function.name, () => `${path}.toolCalls[${i}].function.name`);
    assertStorable(call.function.arguments, () => `${path}.toolCalls[${i}].function.arguments`);
  });
  assertStorable(message.toolCallId, () => `${path}.toolCallId`);
  assertStorable(message.name, () => `${path}.name`);
  if (message.providerData)
    assertStorableProviderData(message.providerData, `${path}.providerData`);
}

/** The string fields of a content part, in the order they are checked. */
const PART_STRINGS = ['text', 'signature', 'imageUrl', 'imageBase64', 'mimeType'] as const;

/** Throws `InvalidMessageError` at `at()` when `text` cannot be stored. */
function assertStorable(text: string | undefined, at: () => string): void {
  if (text === undefined) return;
  const problem = unstorableTextReason(text);
  if (problem) throw new InvalidMessageError(at(), problem);
}

const TEXT_PART_TYPES: ReadonlySet<ContentPartType> = new Set([
  'text',
  'reasoning',
  'redacted_reasoning',
]);

function decodePart(value: unknown, path: string): ContentPart {
  const fields = readObject(value, path);
  const type = fields.get('type');
  if (typeof type !== 'string' || !CONTENT_PART_TYPES.includes(type as ContentPartType)) {
    throw new InvalidMessageError(
      `${path}.type`,
      `must be one of ${CONTENT_PART_TYPES.join(', ')}`,
    );
  }
  const part: ContentPart = { type: type as ContentPartType };
  if (TEXT_PART_TYPES.has(part.type)) {
    part.text = readOptionalString(fields.get('text'), `${path}.text`) ?? '';
    if (part.type === 'reasoning') {
      const signature = readOptionalString(fields.get('signature'), `${path}.signature`);
      if (signature) part.signature = signature;
    }
  } else if (part.type === 'image_url') {
    const imageUrl = readOptionalString(fields.get('imageurl'), `${path}.imageUrl`);
    if (!imageUrl)
      throw new InvalidMessageError(`${path}.imageUrl`, 'an image_url part needs a URL');
    part.imageUrl = imageUrl;
  } else {
    const imageBase64 = readOptionalString(fields.get('imagebase64'), `${path}.imageBase64`);
    if (!imageBase64) {
      throw new InvalidMessageError(
        `${path}.imageBase64`,
        'an image_base64 part needs the image data',
      );
    }
    part.imageBase64 = imageBase64;
    const mimeType = readOptionalString(fields.get('mimetype'), `${path}.mimeType`);
    if (mimeType) part.mimeType = mimeType;
  }
  const providerData = readProviderData(fields.get('providerdata'), `${path}.providerData`);
  if (providerData) part.providerData = providerData;
  return part;
}

function decodeToolCall(value: unknown, path: string): ToolCall {
  const fields = readObject(value, path);
  const id = readOptionalString(fields.get('id'), `${path}.id`);
  if (!id) throw new InvalidMessageError(`${path}.id`, 'a tool call needs an id');
  const type = fields.get('type');
  if (type !== undefined && type !== null && type !== '' && type !== 'function') {
    throw new InvalidMessageError(`${path}.type`, 'must be "function"');
  }
  const fn = readObject(fields.get('function'), `${path}.function`);
  const name = readOptionalString(fn.get('name'), `${path}.function.name`);
  if (!name)
    throw new InvalidMessageError(`${path}.function.name`, 'a tool call needs a function name');
  const args = readOptionalString(fn.get('arguments'), `${path}.function.arguments`) ?? '';
  return { id, type: 'function', function: { name, arguments: args } };
}

/**
 * An object's own fields keyed by lower-cased name, so `ToolCallID` and `toolCallId` meet.
 * @throws InvalidMessageError when two keys differ only in case: which one counts is not clear.
 */
/**
 * A message without `parts` whose content is in fields a message does not have (another
 * library's shape, such as `{ role, content }`) would decode to an empty message: refused
 * instead, naming the field, so no content is dropped silently. (Phero writes `parts` always,
 * `null` when empty.)
 * @throws InvalidMessageError naming the first unknown field.
 */
function assertKnownShape(
  value: Record<string, unknown>,
  fields: ReadonlyMap<string, unknown>,
  path: string,
): void {
  if (fields.has('parts')) return;
  const unknown = Object.keys(value).find((key) => !MESSAGE_FIELDS.has(key.toLowerCase()));
  if (unknown === undefined) return;
  throw new InvalidMessageError(
    `${path}.${unknown}`,
    'is not a field of a message, and the message has no "parts": its content would be lost ' +
      '(a message is { role, parts: [{ type: "text", text }] }, as Phero writes it)',
  );
}

function readObject(value: unknown, path: string): Map<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidMessageError(path, 'must be an object');
  }
  const fields = new Map<string, unknown>();
  const keys = Object.keys(value);
  for (const key of keys) {
    const name = key.toLowerCase();
    if (fields.has(name)) {
      const first = keys.find((other) => other.toLowerCase() === name)!;
      throw new InvalidMessageError(
        path,
        `${JSON.stringify(first)} and ${JSON.stringify(key)} name the same field (names match in any case); give it once`,
      );
    }
    fields.set(name, (value as Record<string, unknown>)[key]);
  }
  return fields;
}

function readList<T>(
  value: unknown,
  path: string,
  decode: (item: unknown, path: string) => T,
  maxItems = Infinity,
  itemsName = 'items',
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new InvalidMessageError(path, 'must be an array');
  if (value.length > maxItems) {
    throw new InvalidMessageError(
      path,
      `a message holds at most ${maxItems} ${itemsName}, got ${value.length}`,
    );
  }
  return value.map((item, index) => decode(item, `${path}[${index}]`));
}

function readOptionalString(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidMessageError(path, 'must be a string');
  return value;
}
