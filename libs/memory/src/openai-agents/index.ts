/**
 * `@agent-memory/memory/openai-agents`: our stores as an OpenAI Agents SDK `Session`
 * (`AgentMemorySession`, with the SDK's transactional history and compaction hook), and lossless
 * converters between our messages and the SDK's `AgentInputItem`s. Only the SDK's types are used:
 * `@openai/agents` is an optional peer this entry point never loads at run time.
 */
export {
  AgentMemorySession,
  type AgentMemorySessionOptions,
  type AgentSessionCompactor,
} from './agent-memory-session';
export {
  OPENAI_AGENTS_KEY,
  fromAgentInputItems,
  toAgentInputItems,
} from './agent-input-item.converter';
export { HISTORY_MARKER_KEY } from './history-log';
