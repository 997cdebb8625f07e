import { CompactionService } from './compaction.service';
import { MEMORY_BACKEND } from './memory.constants';
import { MEMORY_MODULE_OPTIONS } from './memory.module-definition';
import { MemoryService } from './memory.service';

/** The name of the instance `MemoryModule.forRoot` makes without a `name`. */
export const DEFAULT_MEMORY_NAME = 'default';

/** True for the unnamed instance (no name, or {@link DEFAULT_MEMORY_NAME}). */
export function isDefaultMemoryName(name: string | undefined): boolean {
  return name === undefined || name === DEFAULT_MEMORY_NAME;
}

/**
 * The injection token of a memory instance's {@link MemoryService}: the `MemoryService` class for
 * the default instance, `agent-memory:<name>:MemoryService` for `forRoot({ name })`.
 */
export function getMemoryToken(name?: string): string | typeof MemoryService {
  return isDefaultMemoryName(name) ? MemoryService : `agent-memory:${name}:MemoryService`;
}

/**
 * The injection token of a memory instance's {@link MemoryBackend}: `MEMORY_BACKEND` for the
 * default instance, `agent-memory:<name>:MemoryBackend` for `forRoot({ name })`.
 */
export function getMemoryBackendToken(name?: string): string | symbol {
  return isDefaultMemoryName(name) ? MEMORY_BACKEND : memoryBackendLookupToken(name);
}

/**
 * The injection token of a memory instance's {@link CompactionService}: the class for the default
 * instance, `agent-memory:<name>:CompactionService` for `forRoot({ name })`.
 */
export function getCompactionServiceToken(name?: string): string | typeof CompactionService {
  return isDefaultMemoryName(name) ? CompactionService : `agent-memory:${name}:CompactionService`;
}

/**
 * The injection token of the options a memory instance was given (`MEMORY_MODULE_OPTIONS` for the
 * default instance). Inside each instance's own module the options are always under
 * `MEMORY_MODULE_OPTIONS`; this named token is what the instance exports.
 */
export function getMemoryOptionsToken(name?: string): string | symbol {
  return isDefaultMemoryName(name) ? MEMORY_MODULE_OPTIONS : `agent-memory:${name}:MemoryOptions`;
}

/**
 * A token unique to one instance's backend in the whole app, default instance included
 * (`agent-memory:<name>:MemoryBackend`); what `MemoryHealthModule` looks the backend up by.
 */
export function memoryBackendLookupToken(name?: string): string {
  return `agent-memory:${name ?? DEFAULT_MEMORY_NAME}:MemoryBackend`;
}
