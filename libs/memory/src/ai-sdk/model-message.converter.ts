import type {
  AssistantContent,
  FilePart,
  ImagePart,
  ModelMessage,
  ToolCallPart,
  ToolModelMessage,
  ToolResultPart,
} from 'ai';
import { InvalidMessageError } from '../core/errors';
import type { ContentPart, Message, ToolCall } from '../core/message';

/** The key of `providerData` (of a message or a part) holding what the AI SDK carries beyond the model. */
export const AI_SDK_KEY = 'aiSdk';

type Json = Record<string, unknown>;
type ToolOutput = ToolResultPart['output'];
type OutputItem = Extract<ToolOutput, { type: 'content' }>['value'][number];
/**
 * `ai` 6's deprecated `media` output item, which `ai` 7 dropped: named here so that the converter
 * type-checks against both majors and still reads what `ai` 6 wrote.
 */
type MediaOutputItem = { type: 'media'; data: string; mediaType: string };
type UserPart = ImagePart | FilePart | { type: 'text'; text: string };

/**
 * Our messages as AI SDK `ModelMessage`s, for `generateText` / `streamText({ messages })`.
 *
 * Tool calls become `tool-call` parts (their JSON `arguments` parsed into `input`), a tool message
 * a `tool-result` part (`error-text` when it failed; its `toolName` from the call it answers),
 * reasoning a `reasoning` part, images `image` parts (`file` parts in assistant messages). What
 * {@link fromModelMessages} kept in `providerData.aiSdk` (provider options, file names, the
 * order of parts and calls, JSON outputs, which results shared one message) is put back, so
 * messages that came from the AI SDK go back exactly as they came.
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const callNames = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) callNames.set(call.id, call.function.name);
  }
  const out: ModelMessage[] = [];
  messages.forEach((message, index) => {
    const data = aiData(message.providerData);
    const options = data.providerOptions as ModelMessage['providerOptions'];
    switch (message.role) {
      case 'system':
        out.push(
          withOptions({ role: 'system', content: textOf(message.parts) } as ModelMessage, options),
        );
        return;
      case 'user': {
        const parts = message.parts.map((part) => partToAi(part, 'user')) as UserPart[];
        out.push(withOptions({ role: 'user', content: contentOf(parts, data) }, options));
        return;
      }
      case 'assistant': {
        out.push(withOptions(assistantToAi(message, data), options));
        return;
      }
      case 'tool': {
        const result = toolResultToAi(message, data, callNames, `messages[${index}]`);
        const previous = out[out.length - 1];
        if (data.sameMessage === true && previous?.role === 'tool') {
          previous.content.push(result);
        } else {
          out.push(withOptions({ role: 'tool', content: [result] }, options));
        }
      }
    }
  });
  return out;
}

/**
 * AI SDK `ModelMessage`s (a prompt's `messages`, or `response.messages` of `generateText` /
 * `streamText`) as our messages, ready to `save`; {@link toModelMessages} gives them back.
 * A tool message with several results becomes one of our tool messages per result.
 * @throws InvalidMessageError naming `messages[i]…` for a message the model cannot hold: an
 *   unknown role, or a tool message holding a `tool-approval-response` (not stored yet).
 */
export function fromModelMessages(messages: readonly ModelMessage[]): Message[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError('messages', 'must be an array of AI SDK model messages');
  }
  const callNames = new Map<string, string>();
  const out: Message[] = [];
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    const options = message.providerOptions;
    switch (message.role) {
      case 'system':
        out.push(
          withData(
            { role: 'system', parts: [{ type: 'text', text: message.content }] },
            {
              providerOptions: options,
            },
          ),
        );
        return;
      case 'user': {
        const parts =
          typeof message.content === 'string'
            ? [textPart(message.content)]
            : message.content.map(partFromAi);
        out.push(
          withData(
            { role: 'user', parts },
            {
              providerOptions: options,
              contentArray:
                Array.isArray(message.content) && isPlainString(parts) ? true : undefined,
            },
          ),
        );
        return;
      }
      case 'assistant':
        out.push(assistantFromAi(message.content, options, callNames));
        return;
      case 'tool':
        message.content.forEach((part: ToolModelMessage['content'][number], at: number) => {
          if (part.type !== 'tool-result') {
            throw new InvalidMessageError(
              `${path}.content[${at}]`,
              `a ${part.type} part has no place in stored messages yet; store the tool results`,
            );
          }
          out.push(toolResultFromAi(part, at, at === 0 ? options : undefined, callNames));
        });
        return;
      default:
        throw new InvalidMessageError(
          `${path}.role`,
          'must be one of system, user, assistant, tool',
        );
    }
  });
  return out;
}

function assistantToAi(message: Message, data: Json): ModelMessage {
  type AssistantPart = Exclude<AssistantContent, string>[number];
  const parts = message.parts.map((part) => partToAi(part, 'assistant') as AssistantPart);
  const calls = (message.toolCalls ?? []).map((call) => toolCallToAi(call, data));
  if (calls.length === 0) {
    return { role: 'assistant', content: contentOf(parts as UserPart[], data) as AssistantContent };
  }
  const layout = typeof data.layout === 'string' ? data.layout : undefined;
  const content: AssistantPart[] = [];
  if (layout && layout.length === parts.length + calls.length) {
    let p = 0;
    let t = 0;
    for (const slot of layout) content.push(slot === 't' ? calls[t++]! : parts[p++]!);
  } else {
    content.push(...parts, ...calls);
  }
  return { role: 'assistant', content };
}

function assistantFromAi(
  content: AssistantContent,
  options: unknown,
  callNames: Map<string, string>,
): Message {
  if (typeof content === 'string') {
    return withData(
      { role: 'assistant', parts: [textPart(content)] },
      { providerOptions: options },
    );
  }
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const callData: Json = {};
  let layout = '';
  for (const part of content) {
    if (part.type === 'tool-call') {
      toolCalls.push(toolCallFromAi(part));
      callNames.set(part.toolCallId, part.toolName);
      const extra = compact({
        providerOptions: part.providerOptions,
        providerExecuted: part.providerExecuted,
      });
      if (extra) callData[part.toolCallId] = extra;
      layout += 't';
    } else {
      parts.push(partFromAi(part));
      layout += 'p';
    }
  }
  const message: Message = { role: 'assistant', parts };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  return withData(message, {
    providerOptions: options,
    contentArray: toolCalls.length === 0 && isPlainString(parts) ? true : undefined,
    layout: /t.*p/.test(layout) ? layout : undefined,
    toolCalls: Object.keys(callData).length > 0 ? callData : undefined,
  });
}

function toolCallToAi(call: ToolCall, data: Json): ToolCallPart {
  const extra = asRecord(asRecord(data.toolCalls)?.[call.id]) ?? {};
  const part: ToolCallPart = {
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.function.name,
    input: parseArguments(call.function.arguments),
  };
  if (extra.providerOptions !== undefined) {
    part.providerOptions = extra.providerOptions as ToolCallPart['providerOptions'];
  }
  if (extra.providerExecuted !== undefined)
    part.providerExecuted = extra.providerExecuted as boolean;
  return part;
}

function toolCallFromAi(part: ToolCallPart): ToolCall {
  return {
    id: part.toolCallId,
    type: 'function',
    function: {
      name: part.toolName,
      arguments: part.input === undefined ? '' : JSON.stringify(part.input),
    },
  };
}

function parseArguments(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const OUTPUT_KINDS = new Set(['json', 'error-json', 'execution-denied', 'content']);

function toolResultToAi(
  message: Message,
  data: Json,
  callNames: Map<string, string>,
  path: string,
): ToolResultPart {
  if (!message.toolCallId) {
    throw new InvalidMessageError(
      `${path}.toolCallId`,
      'a tool message must name the tool call it answers',
    );
  }
  const kept = typeof data.output === 'string' ? data.output : undefined;
  const onlyText = message.parts.every(
    (part) => part.type === 'text' && !aiData(part.providerData).part,
  );
  const kind = kept ?? (onlyText ? (message.toolError ? 'error-text' : 'text') : 'content');
  const text = textOf(message.parts);
  let output: ToolOutput;
  switch (kind) {
    case 'json':
    case 'error-json':
      output = { type: kind, value: parseArguments(text) as never };
      break;
    case 'execution-denied':
      output = message.parts.length > 0 ? { type: kind, reason: text } : { type: kind };
      break;
    case 'content':
      output = { type: 'content', value: message.parts.map(partToOutputItem) };
      break;
    default:
      output = { type: message.toolError ? 'error-text' : 'text', value: text };
  }
  if (data.outputProviderOptions !== undefined) {
    (output as { providerOptions?: unknown }).providerOptions = data.outputProviderOptions;
  }
  const part: ToolResultPart = {
    type: 'tool-result',
    toolCallId: message.toolCallId,
    toolName:
      (typeof data.toolName === 'string' ? data.toolName : undefined) ??
      callNames.get(message.toolCallId) ??
      message.name ??
      'unknown',
    output,
  };
  if (data.partProviderOptions !== undefined) {
    part.providerOptions = data.partProviderOptions as ToolResultPart['providerOptions'];
  }
  return part;
}

function toolResultFromAi(
  part: ToolResultPart,
  at: number,
  messageOptions: unknown,
  callNames: Map<string, string>,
): Message {
  const output = part.output;
  const message: Message = { role: 'tool', parts: [], toolCallId: part.toolCallId };
  switch (output.type) {
    case 'text':
    case 'error-text':
      message.parts = [textPart(output.value)];
      break;
    case 'json':
    case 'error-json':
      message.parts = [textPart(JSON.stringify(output.value))];
      break;
    case 'execution-denied':
      message.parts = output.reason === undefined ? [] : [textPart(output.reason)];
      break;
    case 'content':
      message.parts = output.value.map(partFromOutputItem);
      break;
  }
  if (output.type.startsWith('error') || output.type === 'execution-denied') {
    message.toolError = true;
  }
  return withData(message, {
    providerOptions: messageOptions,
    sameMessage: at > 0 ? true : undefined,
    output: OUTPUT_KINDS.has(output.type) ? output.type : undefined,
    outputProviderOptions: (output as { providerOptions?: unknown }).providerOptions,
    partProviderOptions: part.providerOptions,
    toolName: callNames.get(part.toolCallId) === part.toolName ? undefined : part.toolName,
  });
}

function partToAi(
  part: ContentPart,
  role: 'user' | 'assistant',
): Exclude<AssistantContent, string>[number] | UserPart {
  const data = aiData(part.providerData);
  if (data.part !== undefined) return data.part as UserPart;
  const options = data.providerOptions as TextPartOptions;
  switch (part.type) {
    case 'text':
      return withOptions({ type: 'text', text: part.text ?? '' }, options);
    case 'reasoning':
      return withOptions({ type: 'reasoning', text: part.text ?? '' }, options);
    case 'redacted_reasoning':
      return withOptions(
        { type: 'reasoning', text: '' },
        options ?? { anthropic: { redactedData: part.text ?? '' } },
      );
    case 'image_url':
    case 'image_base64': {
      const kind = data.type ?? (role === 'assistant' ? 'file' : 'image');
      const content = mediaData(part, data);
      const mediaType =
        part.type === 'image_base64' ? part.mimeType : (data.mediaType as string | undefined);
      if (kind === 'file') {
        const file: FilePart = {
          type: 'file',
          data: content,
          mediaType: mediaType ?? 'application/octet-stream',
        };
        if (typeof data.filename === 'string') file.filename = data.filename;
        return withOptions(file, options);
      }
      const image: ImagePart = { type: 'image', image: content };
      if (mediaType !== undefined) image.mediaType = mediaType;
      return withOptions(image, options);
    }
  }
}

type TextPartOptions = ToolCallPart['providerOptions'];

function partFromAi(part: unknown): ContentPart {
  const ai = part as { type: string; providerOptions?: unknown };
  const options = ai.providerOptions;
  switch (ai.type) {
    case 'text':
    case 'reasoning':
      return withData(
        { type: ai.type, text: (part as { text: string }).text },
        { providerOptions: options },
      );
    case 'image': {
      const image = part as ImagePart;
      return withData(mediaPart(image.image, image.mediaType), { providerOptions: options });
    }
    case 'file': {
      const file = part as FilePart;
      return withData(mediaPart(file.data, file.mediaType), {
        type: 'file',
        filename: file.filename,
        providerOptions: options,
      });
    }
    default:
      return { type: 'text', text: '', providerData: { [AI_SDK_KEY]: { part } } };
  }
}

/** An image or file's data as a part: URLs as `image_url`, bytes and base64 as `image_base64`. */
function mediaPart(content: unknown, mediaType: string | undefined): ContentPart {
  if (
    content instanceof URL ||
    (typeof content === 'object' && content !== null && 'href' in content)
  ) {
    return withData(
      { type: 'image_url', imageUrl: (content as URL).href },
      { form: 'url', mediaType },
    );
  }
  if (typeof content === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(content)) {
      return withData({ type: 'image_url', imageUrl: content }, { mediaType });
    }
    const part: ContentPart = { type: 'image_base64', imageBase64: content };
    if (mediaType !== undefined) part.mimeType = mediaType;
    return part;
  }
  const bytes =
    content instanceof ArrayBuffer
      ? Buffer.from(content)
      : Buffer.from(
          (content as Uint8Array).buffer,
          (content as Uint8Array).byteOffset,
          (content as Uint8Array).byteLength,
        );
  const part: ContentPart = { type: 'image_base64', imageBase64: bytes.toString('base64') };
  if (mediaType !== undefined) part.mimeType = mediaType;
  return withData(part, { form: 'binary' });
}

function mediaData(part: ContentPart, data: Json): URL | string | Uint8Array {
  if (part.type === 'image_url') {
    const url = part.imageUrl ?? '';
    return data.form === 'url' ? new URL(url) : url;
  }
  const base64 = part.imageBase64 ?? '';
  return data.form === 'binary' ? new Uint8Array(Buffer.from(base64, 'base64')) : base64;
}

function partToOutputItem(part: ContentPart): OutputItem {
  const data = aiData(part.providerData);
  if (data.part !== undefined) return data.part as OutputItem;
  const options = data.providerOptions as TextPartOptions;
  if (part.type === 'image_url') {
    const kind = data.type === 'file-url' ? 'file-url' : 'image-url';
    const item = { type: kind, url: part.imageUrl ?? '' } as OutputItem & { mediaType?: string };
    if (kind === 'file-url' && typeof data.mediaType === 'string') item.mediaType = data.mediaType;
    return withOptions(item, options);
  }
  if (part.type === 'image_base64') {
    const kind = typeof data.type === 'string' ? data.type : 'image-data';
    const item = {
      type: kind,
      data: part.imageBase64 ?? '',
      mediaType: part.mimeType ?? 'application/octet-stream',
    } as OutputItem & { filename?: string };
    if (typeof data.filename === 'string') item.filename = data.filename;
    return kind === 'media' ? item : withOptions(item, options);
  }
  return withOptions({ type: 'text', text: part.text ?? '' }, options);
}

function partFromOutputItem(item: OutputItem | MediaOutputItem): ContentPart {
  const options = 'providerOptions' in item ? item.providerOptions : undefined;
  switch (item.type) {
    case 'text':
      return withData(textPart(item.text), { providerOptions: options });
    case 'image-url':
      return withData({ type: 'image_url', imageUrl: item.url }, { providerOptions: options });
    case 'file-url':
      return withData(
        { type: 'image_url', imageUrl: item.url },
        { type: 'file-url', mediaType: item.mediaType, providerOptions: options },
      );
    case 'image-data':
    case 'file-data':
    case 'media':
      return withData(
        { type: 'image_base64', imageBase64: item.data, mimeType: item.mediaType },
        {
          type: item.type === 'image-data' ? undefined : item.type,
          filename: item.type === 'file-data' ? item.filename : undefined,
          providerOptions: options,
        },
      );
    default:
      return { type: 'text', text: '', providerData: { [AI_SDK_KEY]: { part: item } } };
  }
}

/** String content for one plain text part unless the SDK had an array, else the parts. */
function contentOf<T extends { type: string }>(parts: T[], data: Json): string | T[] {
  const [only] = parts;
  if (
    data.contentArray !== true &&
    parts.length === 1 &&
    only!.type === 'text' &&
    Object.keys(only!).length === 2
  ) {
    return (only as unknown as { text: string }).text;
  }
  return parts;
}

/** True when the parts would be written back as string content (one text part, no provider data). */
function isPlainString(parts: ContentPart[]): boolean {
  return parts.length === 1 && parts[0]!.type === 'text' && parts[0]!.providerData === undefined;
}

function textOf(parts: ContentPart[]): string {
  return parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

function textPart(text: string): ContentPart {
  return { type: 'text', text };
}

/** The AI SDK's own entries of `providerData` (other adapters' keys aside). */
function aiData(providerData: Record<string, unknown> | undefined): Json {
  return asRecord(providerData?.[AI_SDK_KEY]) ?? {};
}

/** Adds the defined entries of `data`, if any, to `providerData.aiSdk`. */
function withData<T extends Message | ContentPart>(target: T, data: Json): T {
  const kept = compact(data);
  if (kept) {
    const before = aiData(target.providerData);
    target.providerData = { ...target.providerData, [AI_SDK_KEY]: { ...before, ...kept } };
  }
  return target;
}

function withOptions<T extends object>(target: T, options: unknown): T {
  if (options !== undefined) (target as { providerOptions?: unknown }).providerOptions = options;
  return target;
}

function compact(data: Json): Json | undefined {
  const kept = Object.entries(data).filter(([, value]) => value !== undefined);
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}
