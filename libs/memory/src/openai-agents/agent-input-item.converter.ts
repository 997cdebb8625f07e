import type { AgentInputItem } from '@openai/agents';
import { imagePartFromUrl, imagePartToUrl } from '../core/media-part.codec';
import type { ContentPart, Message, ToolCall } from '../core/message';
import { readSection } from '../core/provider-data-section';
import { toolArgumentsText } from '../core/tool-arguments';
import { applyJson, diffJson, type JsonResidual } from './json-residual';

/** The key of a message's `providerData` holding what the Agents SDK items carried beyond the model. */
export const OPENAI_AGENTS_KEY = 'openaiAgents';

/** Which kind of item one stored record stands for. */
type ItemKind =
  | 'user'
  | 'system'
  | 'assistant'
  | 'reasoning'
  | 'function_call'
  | 'function_call_result'
  | 'other';

/**
 * One SDK item inside a stored message: its kind, how many of the message's parts it holds (a
 * function call holds one tool call instead) and what the item has beyond them.
 */
interface ItemRecord {
  kind: ItemKind;
  parts?: number;
  residual?: JsonResidual;
}

type Json = Record<string, unknown>;

/**
 * Our messages as Agents SDK items (`AgentInputItem`), for a `Session`'s `getItems` or a run's
 * input. A user message becomes a user message item (`input_text`, `input_image`), a system message
 * a system item, a tool message a `function_call_result` (status `incomplete` when it failed, its
 * `name` from the call it answers), and an assistant message a `reasoning` item for its reasoning
 * parts, an assistant message item for its text, and one `function_call` item per tool call. What
 * {@link fromAgentInputItems} kept in `providerData.openaiAgents` is put back, so items that came
 * from the SDK go back byte-equal (same fields, values and key order).
 */
export function toAgentInputItems(messages: readonly Message[]): AgentInputItem[] {
  return toAgentInputItemGroups(messages).flat();
}

/** {@link toAgentInputItems}, keeping which items each message gave (one list per message). */
export function toAgentInputItemGroups(messages: readonly Message[]): AgentInputItem[][] {
  const callNames = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) callNames.set(call.id, call.function.name);
  }
  return messages.map((message) => messageToItems(message, callNames));
}

/**
 * Agents SDK items as our messages, losslessly: see {@link toAgentInputItems} for the mapping. The
 * items of one assistant turn (reasoning, then text, then function calls) become one assistant
 * message with parts and tool calls. Whatever an item holds that the model has no place for
 * (ids, statuses, provider data such as encrypted reasoning, files, hosted tool calls, unknown
 * item types) is kept in the message's `providerData.openaiAgents`.
 */
export function fromAgentInputItems(items: readonly AgentInputItem[]): Message[] {
  const callNames = new Map<string, string>();
  const messages: Message[] = [];
  let group: { message: Message; records: ItemRecord[]; last: ItemKind } | undefined;
  const finish = () => {
    if (group) messages.push(withRecords(group.message, group.records));
    group = undefined;
  };
  for (const [index, raw] of items.entries()) {
    const path = `items[${index}]`;
    const item = JSON.parse(JSON.stringify(raw)) as Json;
    const kind = kindOf(item);
    if (kind === 'function_call') callNames.set(String(item.callId), String(item.name));
    if (kind === 'assistant' || kind === 'reasoning' || kind === 'function_call') {
      if (!group || !joins(group.last, kind)) {
        finish();
        group = { message: { role: 'assistant', parts: [] }, records: [], last: kind };
      }
      group.records.push(addToAssistant(group.message, kind, item, path));
      group.last = kind;
      continue;
    }
    finish();
    messages.push(standalone(kind, item, callNames, path));
  }
  finish();
  return messages;
}

/** Whether an item of `kind` continues an assistant turn whose latest item was `last`. */
function joins(last: ItemKind, kind: ItemKind): boolean {
  if (kind === 'function_call') return true;
  return last !== 'function_call' && last !== kind;
}

function kindOf(item: Json): ItemKind {
  if (item.type === 'reasoning') return 'reasoning';
  if (item.type === 'function_call') return 'function_call';
  if (item.type === 'function_call_result') return 'function_call_result';
  if (item.type === undefined || item.type === 'message') {
    if (item.role === 'user') return 'user';
    if (item.role === 'system') return 'system';
    if (item.role === 'assistant') return 'assistant';
  }
  return 'other';
}

// ---------------------------------------------------------------- items to a message

function addToAssistant(message: Message, kind: ItemKind, item: Json, path: string): ItemRecord {
  if (kind === 'function_call') {
    const call: ToolCall = {
      id: String(item.callId ?? ''),
      type: 'function',
      function: { name: String(item.name ?? ''), arguments: toolArgumentsText(item.arguments) },
    };
    (message.toolCalls ??= []).push(call);
    return recordFor(kind, undefined, buildFunctionCall(call), item);
  }
  const parts =
    kind === 'reasoning'
      ? reasoningParts(item.content)
      : assistantParts(item.content, `${path}.content`);
  message.parts.push(...parts);
  const base = kind === 'reasoning' ? buildReasoning(parts) : buildAssistant(parts);
  return recordFor(kind, parts.length, base, item);
}

function standalone(
  kind: ItemKind,
  item: Json,
  callNames: Map<string, string>,
  path: string,
): Message {
  let message: Message;
  let base: Json;
  switch (kind) {
    case 'user':
      message = { role: 'user', parts: userParts(item.content, `${path}.content`) };
      base = buildUser(message.parts);
      break;
    case 'system':
      message = {
        role: 'system',
        parts: typeof item.content === 'string' ? [{ type: 'text', text: item.content }] : [],
      };
      base = buildSystem(message.parts);
      break;
    case 'function_call_result': {
      const callId = String(item.callId ?? '');
      message = {
        role: 'tool',
        toolCallId: callId,
        parts: outputParts(item.output, `${path}.output`),
      };
      if (item.status === 'incomplete') message.toolError = true;
      const name = String(item.name ?? '');
      if (name !== callNames.get(callId)) message.name = name;
      base = buildFunctionResult(message, callNames);
      break;
    }
    default:
      // A hosted tool call, a computer or shell call, a compaction marker, an unknown item: kept whole.
      message = { role: 'assistant', parts: [] };
      base = {};
  }
  const record = recordFor(kind, message.parts.length, base, item);
  return withRecords(message, [record]);
}

function recordFor(kind: ItemKind, parts: number | undefined, base: Json, item: Json): ItemRecord {
  const record: ItemRecord = { kind };
  if (parts !== undefined) record.parts = parts;
  const residual = diffJson(base, item);
  if (residual) record.residual = residual;
  return record;
}

/** Keeps `records` in the message's provider data unless the plain mapping gives them back. */
function withRecords(message: Message, records: ItemRecord[]): Message {
  const plain = JSON.stringify(canonicalRecords(message)) === JSON.stringify(records);
  if (!plain) message.providerData = { [OPENAI_AGENTS_KEY]: { items: records } };
  return message;
}

function userParts(content: unknown, path: string): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return (content as Json[]).flatMap((part, at): ContentPart[] => {
    if (part.type === 'input_text' && typeof part.text === 'string') {
      return [{ type: 'text', text: part.text }];
    }
    if (part.type === 'input_image' && typeof part.image === 'string')
      return [imagePartFromUrl(part.image, `${path}[${at}].image`)];
    return [];
  });
}

function assistantParts(content: unknown, path: string): ContentPart[] {
  if (!Array.isArray(content)) return [];
  return (content as Json[]).flatMap((part, at): ContentPart[] => {
    if (part.type === 'output_text' && typeof part.text === 'string') {
      return [{ type: 'text', text: part.text }];
    }
    if (part.type === 'image' && typeof part.image === 'string') {
      return [imagePartFromUrl(part.image, `${path}[${at}].image`)];
    }
    return [];
  });
}

function reasoningParts(content: unknown): ContentPart[] {
  if (!Array.isArray(content)) return [];
  return (content as Json[]).flatMap((part): ContentPart[] => {
    if (part.type !== 'input_text' || typeof part.text !== 'string') return [];
    const data = (part.providerData ?? {}) as Json;
    const out: ContentPart = {
      type: data.redacted === true ? 'redacted_reasoning' : 'reasoning',
      text: part.text,
    };
    if (typeof data.signature === 'string') out.signature = data.signature;
    return [out];
  });
}

function outputParts(output: unknown, path: string): ContentPart[] {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  if (Array.isArray(output)) return userParts(output, path);
  if (typeof output === 'object' && output !== null) {
    const part = output as Json;
    if (part.type === 'text' && typeof part.text === 'string') {
      return [{ type: 'text', text: part.text }];
    }
    if (part.type === 'image' && typeof part.image === 'string') {
      return [imagePartFromUrl(part.image, `${path}.image`)];
    }
  }
  return [];
}

// ---------------------------------------------------------------- a message to items

function messageToItems(message: Message, callNames: Map<string, string>): AgentInputItem[] {
  const stored = readSection(message.providerData, OPENAI_AGENTS_KEY).items as
    ItemRecord[] | undefined;
  const records = Array.isArray(stored) ? stored : canonicalRecords(message);
  let partIndex = 0;
  let callIndex = 0;
  return records.map((record) => {
    const parts = message.parts.slice(partIndex, partIndex + (record.parts ?? 0));
    partIndex += record.parts ?? 0;
    let base: Json;
    switch (record.kind) {
      case 'user':
        base = buildUser(parts);
        break;
      case 'system':
        base = buildSystem(parts);
        break;
      case 'assistant':
        base = buildAssistant(parts);
        break;
      case 'reasoning':
        base = buildReasoning(parts);
        break;
      case 'function_call':
        base = buildFunctionCall(message.toolCalls?.[callIndex++]);
        break;
      case 'function_call_result':
        base = buildFunctionResult({ ...message, parts }, callNames);
        break;
      default:
        base = {};
    }
    return applyJson(base, record.residual) as AgentInputItem;
  });
}

/** The records the plain mapping gives a message: what needs no provider data to come back. */
function canonicalRecords(message: Message): ItemRecord[] {
  const count = message.parts.length;
  switch (message.role) {
    case 'user':
      return [{ kind: 'user', parts: count }];
    case 'system':
      return [{ kind: 'system', parts: count }];
    case 'tool':
      return [{ kind: 'function_call_result', parts: count }];
    default: {
      const records: ItemRecord[] = [];
      for (const part of message.parts) {
        const kind: ItemKind = isReasoning(part) ? 'reasoning' : 'assistant';
        const last = records[records.length - 1];
        if (last?.kind === kind) last.parts = (last.parts ?? 0) + 1;
        else records.push({ kind, parts: 1 });
      }
      for (let i = 0; i < (message.toolCalls?.length ?? 0); i++)
        records.push({ kind: 'function_call' });
      if (records.length === 0) records.push({ kind: 'assistant', parts: 0 });
      return records;
    }
  }
}

function isReasoning(part: ContentPart): boolean {
  return part.type === 'reasoning' || part.type === 'redacted_reasoning';
}

function buildUser(parts: readonly ContentPart[]): Json {
  return {
    type: 'message',
    role: 'user',
    content: parts.map((part) =>
      isImage(part)
        ? { type: 'input_image', image: imageOf(part) }
        : { type: 'input_text', text: part.text ?? '' },
    ),
  };
}

function buildSystem(parts: readonly ContentPart[]): Json {
  return {
    type: 'message',
    role: 'system',
    content: parts.map((part) => part.text ?? '').join('\n'),
  };
}

function buildAssistant(parts: readonly ContentPart[]): Json {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: parts.map((part) =>
      isImage(part)
        ? { type: 'image', image: imageOf(part) }
        : { type: 'output_text', text: part.text ?? '' },
    ),
  };
}

function buildReasoning(parts: readonly ContentPart[]): Json {
  return {
    type: 'reasoning',
    content: parts.map((part) => {
      const data: Json = {};
      if (part.type === 'redacted_reasoning') data.redacted = true;
      if (part.signature !== undefined) data.signature = part.signature;
      const out: Json = { type: 'input_text', text: part.text ?? '' };
      if (Object.keys(data).length > 0) out.providerData = data;
      return out;
    }),
  };
}

function buildFunctionCall(call: ToolCall | undefined): Json {
  return {
    type: 'function_call',
    callId: call?.id ?? '',
    name: call?.function.name ?? '',
    arguments: call?.function.arguments ?? '',
  };
}

function buildFunctionResult(message: Message, callNames: Map<string, string>): Json {
  const callId = message.toolCallId ?? '';
  const parts = message.parts;
  const onlyText = parts.length === 1 && parts[0]!.type === 'text';
  return {
    type: 'function_call_result',
    name: message.name ?? callNames.get(callId) ?? '',
    callId,
    status: message.toolError ? 'incomplete' : 'completed',
    output: onlyText
      ? { type: 'text', text: parts[0]!.text ?? '' }
      : parts.map((part) =>
          isImage(part)
            ? { type: 'input_image', image: imageOf(part) }
            : { type: 'input_text', text: part.text ?? '' },
        ),
  };
}

function isImage(part: ContentPart): boolean {
  return part.type === 'image_url' || part.type === 'image_base64';
}

function imageOf(part: ContentPart): string {
  return imagePartToUrl(part);
}
