import type { ToolResultPart } from 'ai';
import { InvalidMessageError } from '../core/errors';
import type { Message } from '../core/message';
import { parseToolArguments } from '../core/tool-arguments';
import { aiData, textOf, textPart, withData, type Json } from './ai-sdk-data';
import { partFromOutputItem, partToOutputItem, type ToolOutput } from './model-message.parts';

/** The output kinds kept by name: text and error-text are told apart by `toolError`. */
const OUTPUT_KINDS = new Set(['json', 'error-json', 'execution-denied', 'content']);

/**
 * A tool message as a `tool-result` part: its output kind from what was kept (else text, error-text
 * or content), its `toolName` from the kept name, the call it answers, or the message's name.
 * @throws InvalidMessageError at `${path}.toolCallId` when the message names no call.
 */
export function toolResultToAi(
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
      output = { type: kind, value: parseToolArguments(text) as never };
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

/** A `tool-result` part as one tool message; `at` is its place in the SDK message. */
export function toolResultFromAi(
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
