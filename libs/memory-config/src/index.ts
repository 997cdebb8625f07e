/**
 * `@agent-memory/memory-config`: the memory settings the admin server (`apps/api`) and the
 * compaction worker (`apps/worker`) both read from the environment, and the backend and
 * `MemoryModule` options they make of them, so the two processes agree.
 */
export { ConfigValidationError } from './config-validation.error';
export {
  EnvReader,
  MEMORY_ENV_VARS,
  memoryDriverOf,
  parseMemoryConfig,
  readMemoryConfig,
  type MemoryConfig,
  type MemoryConfigOptions,
} from './memory-config';
export {
  memoryBackendFromConfig,
  memoryBackendWithRecallFromConfig,
  memoryModuleOptionsFromConfig,
} from './memory-options.factory';
export { readRecallConfig, RECALL_ENV_VARS, type RecallConfig } from './recall-config';
export {
  recallEmbedderFromConfig,
  recallStoreFromConfig,
  withRecallFromConfig,
  type RecallErrorListener,
} from './recall-options.factory';
