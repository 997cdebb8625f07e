/** The message model shared by every store, compatible with Phero's `llm.Message`. */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** The kinds of content part a message can hold. */
export type ContentPartType =
  'text' | 'image_url' | 'image_base64' | 'reasoning' | 'redacted_reasoning';

/** One piece of a message's content; which fields apply depends on `type`. */
export interface ContentPart {
  type: ContentPartType;
  /** For `text`, `reasoning` and `redacted_reasoning`. */
  text?: string;
  /** For `image_url`. */
  imageUrl?: string;
  /** For `image_base64`: the image bytes, base64-encoded. */
  imageBase64?: string;
  /** For `image_base64`, such as `image/png`. */
  mimeType?: string;
  /** For `reasoning`: the provider's signature, round-tripped unchanged. */
  signature?: string;
  /** Fields an SDK or provider gives this part that the model has no place for, kept as they are (see {@link Message.providerData}). */
  providerData?: Record<string, unknown>;
}

/** A tool call the assistant asked for; the answer comes back as a `tool` message with the same `id`. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One message of a conversation, provider-neutral: a role, content parts, and the tool calls or tool answer it carries. */
export interface Message {
  role: Role;
  parts: ContentPart[];
  /** Assistant messages only. */
  toolCalls?: ToolCall[];
  /** Tool messages only: the id of the call this message answers. */
  toolCallId?: string;
  /** Tool messages only: the tool failed and `parts` describe the failure. */
  toolError?: boolean;
  name?: string;
  /**
   * Fields an SDK or provider gives this message that the model has no place for (an encrypted
   * reasoning item, provider options), stored and returned as they are so a round trip through
   * a store loses nothing. A JSON object of at most `MAX_PROVIDER_DATA_BYTES`; the library never
   * reads it, and Phero's readers ignore it.
   */
  providerData?: Record<string, unknown>;
}

/** Every {@link Role}, for validation. */
export const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];
/** Every {@link ContentPartType}, for validation. */
export const CONTENT_PART_TYPES: readonly ContentPartType[] = [
  'text',
  'image_url',
  'image_base64',
  'reasoning',
  'redacted_reasoning',
];

/** A user message from text, or from content parts (for images). */
export function userMessage(textOrParts: string | ContentPart[]): Message {
  const parts = typeof textOrParts === 'string' ? [textPart(textOrParts)] : [...textOrParts];
  return { role: 'user', parts };
}

/** An assistant message, optionally calling tools. */
export function assistantMessage(text: string, toolCalls?: ToolCall[]): Message {
  const message: Message = { role: 'assistant', parts: text === '' ? [] : [textPart(text)] };
  if (toolCalls && toolCalls.length > 0) message.toolCalls = toolCalls.map((call) => ({ ...call }));
  return message;
}

/** A system message with one text part. */
export function systemMessage(text: string): Message {
  return { role: 'system', parts: [textPart(text)] };
}

/** The result of the tool call `toolCallId`; `error: true` marks a failed call. */
export function toolResultMessage(
  toolCallId: string,
  text: string,
  opts: { error?: boolean } = {},
): Message {
  const message: Message = { role: 'tool', parts: [textPart(text)], toolCallId };
  if (opts.error) message.toolError = true;
  return message;
}

/** The message's text parts joined by "\n" (reasoning and images are left out). */
export function textContent(message: Message): string {
  return message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

function textPart(text: string): ContentPart {
  return { type: 'text', text };
}
