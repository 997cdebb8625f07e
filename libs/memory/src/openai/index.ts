/**
 * `@agent-memory/memory/openai`: our messages as OpenAI Chat Completions messages and back,
 * without loss, for the `openai` SDK or any OpenAI-compatible server. Needs no SDK at run time.
 */
export {
  CHAT_COMPLETIONS_KEY,
  TOOL_ERROR_PREFIX,
  fromChatCompletionMessage,
  fromChatCompletionMessages,
  toChatCompletionMessage,
  toChatCompletionMessages,
} from './chat-completion.converter';
export type * from './chat-completion.types';
