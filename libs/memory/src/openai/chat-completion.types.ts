/**
 * The OpenAI Chat Completions message shapes the converters read and write, declared here so this
 * entry point needs no SDK: the `openai` package's `ChatCompletionMessageParam` accepts them.
 */

/** A text part of a message's content. */
export interface ChatCompletionTextPart {
  type: 'text';
  text: string;
}

/** An image part of a user message's content: an https URL or a `data:` URL. */
export interface ChatCompletionImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

/** A content part of a Chat Completions message. */
export type ChatCompletionContentPart = ChatCompletionTextPart | ChatCompletionImagePart;

/** A function call the assistant asked for; `arguments` is JSON text. */
export interface ChatCompletionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A `system` message (`developer` for the models that take that role instead). */
export interface ChatCompletionSystemMessage {
  role: 'system' | 'developer';
  content: string | ChatCompletionTextPart[];
  name?: string;
}

/** A `user` message: text and images. */
export interface ChatCompletionUserMessage {
  role: 'user';
  content: string | ChatCompletionContentPart[];
  name?: string;
}

/** An `assistant` message: text (`null` when it only calls tools) and tool calls. */
export interface ChatCompletionAssistantMessage {
  role: 'assistant';
  content?: string | ChatCompletionTextPart[] | null;
  name?: string;
  tool_calls?: ChatCompletionToolCall[];
}

/** A `tool` message: the answer to the tool call `tool_call_id`. */
export interface ChatCompletionToolMessage {
  role: 'tool';
  content: string | ChatCompletionTextPart[];
  tool_call_id: string;
}

/** One message of a Chat Completions request or answer. */
export type ChatCompletionMessage =
  | ChatCompletionSystemMessage
  | ChatCompletionUserMessage
  | ChatCompletionAssistantMessage
  | ChatCompletionToolMessage;
