import type { AssistantContent, ModelMessage, ToolCallPart, ToolModelMessage } from 'ai';
import { InvalidMessageError } from '../core/errors';
import type { ContentPart, Message, ToolCall } from '../core/message';
import { asJsonObject, definedFields } from '../core/provider-data-section';
import { parseToolArguments } from '../core/tool-arguments';
import {
  aiData,
  contentOf,
  isPlainString,
  textOf,
  textPart,
  withData,
  withOptions,
  type Json,
} from './ai-sdk-data';
import { partFromAi, partToAi, type UserPart } from './model-message.parts';
import { toolResultFromAi, toolResultToAi } from './model-message.tool-result';

export { AI_SDK_KEY } from './ai-sdk-data';

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
            : (message.content as unknown[]).map((part, at) =>
                partFromAi(part, `${path}.content[${at}]`),
              );
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
        out.push(assistantFromAi(message.content, options, callNames, path));
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
  path: string,
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
      const extra = definedFields({
        providerOptions: part.providerOptions,
        providerExecuted: part.providerExecuted,
      });
      if (extra) callData[part.toolCallId] = extra;
      layout += 't';
    } else {
      parts.push(partFromAi(part, `${path}.content[${parts.length + toolCalls.length}]`));
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
  const extra = asJsonObject(asJsonObject(data.toolCalls)?.[call.id]) ?? {};
  const part: ToolCallPart = {
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.function.name,
    input: parseToolArguments(call.function.arguments),
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
