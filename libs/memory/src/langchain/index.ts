/**
 * `@agent-memory/memory/langchain`: our stores as LangChain.js chat message history, and lossless
 * converters between our messages and LangChain's `BaseMessage`s. `@langchain/core` is an optional
 * peer, loaded only by this entry point.
 */
export { AgentMemoryChatMessageHistory } from './agent-memory-chat-message-history';
export { LANGCHAIN_KEY, fromBaseMessages, toBaseMessages } from './base-message.converter';
