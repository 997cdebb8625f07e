/**
 * `@agent-memory/memory/ai-sdk`: our stores as the memory of the Vercel AI SDK (`ai` 6 or 7): model
 * messages for `generateText` / `streamText`, and `UIMessage`s for chat persistence. `ai` is an
 * optional peer, loaded only by the functions that call it.
 */
export { AI_SDK_KEY } from './ai-sdk-data';
export { fromModelMessages, toModelMessages } from './model-message.converter';
export {
  MAX_KEPT_UI_MESSAGE_BYTES,
  createChatStore,
  type ChatStore,
  type ChatStoreOptions,
} from './chat-persistence';
