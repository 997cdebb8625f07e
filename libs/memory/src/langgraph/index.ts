/**
 * `@agent-memory/memory/langgraph`: a LangGraph.js checkpointer on any backend of this package.
 * Needs the optional peers `@langchain/langgraph-checkpoint` and `@langchain/core`.
 */
export {
  MemoryCheckpointSaver,
  type MemoryCheckpointSaverOptions,
  type PruneCheckpointsOptions,
} from './memory-checkpoint.saver';
