import { CompactionService } from './compaction.service';
import { MemoryService } from './memory.service';

/**
 * The token of the options a `MemoryModule` instance was given: what the default instance provides
 * and exports them under. A named instance's are under `getMemoryOptionsToken(name)`.
 */
export const MEMORY_MODULE_OPTIONS = Symbol('MEMORY_MODULE_OPTIONS');

/**
 * The injection token of the module's one {@link MemoryBackend} provider. Inject it with
 * `@Inject(MEMORY_BACKEND)` when you need the backend itself (`MemoryService.backend` is the same
 * object).
 */
export const MEMORY_BACKEND = Symbol('MEMORY_BACKEND');

/** Token of the compaction settings after defaults and validation ({@link ResolvedCompactionConfig}). */
export const MEMORY_COMPACTION_CONFIG = Symbol('MEMORY_COMPACTION_CONFIG');

/** Token of the {@link SharedCompactionJobs}: where compaction job states are kept for every replica. */
export const COMPACTION_JOBS = Symbol('COMPACTION_JOBS');

/** Token of the {@link CompactionRunner} that executes one check (in-process, or over NATS). */
export const COMPACTION_RUNNER = Symbol('COMPACTION_RUNNER');

/** The default instance's teardown (not exported by the module: Nest only calls its hooks). */
const MEMORY_TEARDOWN = Symbol('MEMORY_TEARDOWN');

/**
 * Inside `MemoryHealthModule.forFeature`, the name of the instance its indicator probes (internal
 * to that module, not exported by the package).
 */
export const MEMORY_HEALTH_INSTANCE = Symbol('MEMORY_HEALTH_INSTANCE');

/** The name of the instance `MemoryModule.forRoot` makes without a `name`. */
export const DEFAULT_MEMORY_NAME = 'default';

/** True for the unnamed instance (no name, or {@link DEFAULT_MEMORY_NAME}). */
export function isDefaultMemoryName(name: string | undefined): boolean {
  return name === undefined || name === DEFAULT_MEMORY_NAME;
}

/**
 * Every injection token of one memory instance: what the module's one provider recipe is
 * parameterised by. The default instance's are the classes and symbols above, so
 * `app.get(MemoryService)` finds it; a named instance's all carry its name
 * (`agent-memory:<name>:<role>`), so a lookup of a class never finds a named one.
 */
export interface MemoryInstanceTokens {
  /** The instance's name ({@link DEFAULT_MEMORY_NAME} for the unnamed one). */
  readonly name: string;
  /** Its options, as given to `forRoot` or made by `forRootAsync`. */
  readonly options: string | symbol;
  /** Its {@link MemoryBackend}. */
  readonly backend: string | symbol;
  /**
   * A token for the backend unique in the whole app, default instance included; what the health
   * module looks the backend up by.
   */
  readonly backendLookup: string;
  /** Its compaction settings after defaults ({@link ResolvedCompactionConfig}). */
  readonly compactionConfig: string | symbol;
  /** Its {@link CompactionRunner}. */
  readonly compactionRunner: string | symbol;
  /** Its {@link SharedCompactionJobs}. */
  readonly compactionJobs: string | symbol;
  /** Its {@link CompactionService}. */
  readonly compaction: string | typeof CompactionService;
  /** Its {@link MemoryService}. */
  readonly memory: string | typeof MemoryService;
  /** The provider that shuts it down (compaction, then the runner's and the backend's close). */
  readonly teardown: string | symbol;
  /** The health indicator `MemoryHealthModule.forFeature({ name })` provides (named instances). */
  readonly health: string;
}

/** The tokens of the memory instance `name` (the default instance without one). */
export function getMemoryInstanceTokens(name?: string): MemoryInstanceTokens {
  const resolved = name ?? DEFAULT_MEMORY_NAME;
  const named = (role: string): string => `agent-memory:${resolved}:${role}`;
  const shared = {
    name: resolved,
    backendLookup: named('MemoryBackend'),
    health: named('MemoryHealth'),
  };
  if (isDefaultMemoryName(name)) {
    return {
      ...shared,
      options: MEMORY_MODULE_OPTIONS,
      backend: MEMORY_BACKEND,
      compactionConfig: MEMORY_COMPACTION_CONFIG,
      compactionRunner: COMPACTION_RUNNER,
      compactionJobs: COMPACTION_JOBS,
      compaction: CompactionService,
      memory: MemoryService,
      teardown: MEMORY_TEARDOWN,
    };
  }
  return {
    ...shared,
    options: named('MemoryOptions'),
    backend: shared.backendLookup,
    compactionConfig: named('CompactionConfig'),
    compactionRunner: named('CompactionRunner'),
    compactionJobs: named('CompactionJobs'),
    compaction: named('CompactionService'),
    memory: named('MemoryService'),
    teardown: named('Teardown'),
  };
}

/**
 * The injection token of a memory instance's {@link MemoryService}: the `MemoryService` class for
 * the default instance, `agent-memory:<name>:MemoryService` for `forRoot({ name })`.
 */
export function getMemoryToken(name?: string): string | typeof MemoryService {
  return getMemoryInstanceTokens(name).memory;
}

/**
 * The injection token of a memory instance's {@link MemoryBackend}: `MEMORY_BACKEND` for the
 * default instance, `agent-memory:<name>:MemoryBackend` for `forRoot({ name })`.
 */
export function getMemoryBackendToken(name?: string): string | symbol {
  return getMemoryInstanceTokens(name).backend;
}

/**
 * The injection token of a memory instance's {@link CompactionService}: the class for the default
 * instance, `agent-memory:<name>:CompactionService` for `forRoot({ name })`.
 */
export function getCompactionServiceToken(name?: string): string | typeof CompactionService {
  return getMemoryInstanceTokens(name).compaction;
}

/**
 * The injection token of the options a memory instance was given: `MEMORY_MODULE_OPTIONS` for the
 * default instance, `agent-memory:<name>:MemoryOptions` for `forRoot({ name })`.
 */
export function getMemoryOptionsToken(name?: string): string | symbol {
  return getMemoryInstanceTokens(name).options;
}

/**
 * A token unique to one instance's backend in the whole app, default instance included
 * (`agent-memory:<name>:MemoryBackend`); what `MemoryHealthModule` looks the backend up by.
 */
export function memoryBackendLookupToken(name?: string): string {
  return getMemoryInstanceTokens(name).backendLookup;
}
