/**
 * What a store hands the conformance suite: how to make a fresh backend, how to destroy it, and
 * which capabilities it has. Tests a store cannot take are skipped, visibly, by capability.
 */
import type { MemoryBackend } from '@agent-memory/memory';

/** The backend options the suites vary. A store without `pruneCompactedOption` may ignore them. */
export interface ConformanceBackendOptions {
  /** Drop the messages a snapshot covers (see `capabilities.pruneCompactedOption`). */
  pruneCompacted?: boolean;
  /**
   * True in the child processes of the cross-process tests, where many open the storage at once:
   * keep connection pools small.
   */
  childProcess?: boolean;
}

/** What a store can do beyond the contract every store keeps. All default to false. */
export interface MemoryBackendCapabilities {
  /**
   * Other OS processes can open the same storage at once (a database, a broker, shared files).
   * Needs `storageOf`, `openStorage` and `processModule`.
   */
  crossProcess?: boolean;
  /** `createBackend({ pruneCompacted })` is honoured, both true and false. */
  pruneCompactedOption?: boolean;
  /** Without the option, the store drops the messages a snapshot covers. */
  prunesCompactedByDefault?: boolean;
  /**
   * A save's messages take consecutive cursors, even with other processes writing the same
   * session (a database sequence under a session lock). Checked by the cross-process test.
   */
  consecutiveSaveCursors?: boolean;
}

/** The module a child process loads to open a store's storage (cross-process tests). */
export interface ProcessModule {
  /** Absolute path of the module (TypeScript or JavaScript). */
  path: string;
  /** The export holding an object with `openStorage` (such as the initializer). Default `default`. */
  exportName?: string;
}

/**
 * A store under test. `Storage` is JSON naming a backend's storage (a folder, a table, a bucket)
 * that another replica or process opens again with `openStorage`.
 */
export interface MemoryBackendInitializer<Storage = unknown> {
  /** The store's name, in every test title. */
  name: string;
  /** A backend over fresh, isolated storage (no other test sees it). */
  createBackend(options?: ConformanceBackendOptions): MemoryBackend | Promise<MemoryBackend>;
  /** Closes `backend` and removes its storage. Default: `backend.close()`. */
  destroyBackend?(backend: MemoryBackend): void | Promise<void>;
  capabilities?: MemoryBackendCapabilities;
  /**
   * The storage `backend` opened, as JSON. With `openStorage`, the suites open a second replica
   * of it (their own connection or file handle) to write the same sessions; without them, the
   * backend itself stands for its replica (an in-process store has no other opener).
   */
  storageOf?(backend: MemoryBackend): Storage;
  /** Opens `storage` again, as another replica or process would. Closed with `close()`. */
  openStorage?(
    storage: Storage,
    options?: ConformanceBackendOptions,
  ): MemoryBackend | Promise<MemoryBackend>;
  /** Where a child process finds `openStorage` (with `capabilities.crossProcess`). */
  processModule?: ProcessModule;
  /** Removes what the store set up for all its backends (a schema, a folder), after the last test. */
  afterAll?(): void | Promise<void>;
}

/** Thrown for an initializer that lacks what the suite needs; says what is wrong. */
export class InvalidInitializerError extends Error {
  readonly code = 'CONFORMANCE_INVALID_INITIALIZER';
  constructor(problem: string) {
    super(`not a memory backend initializer: ${problem}`);
    this.name = 'InvalidInitializerError';
  }
}

/**
 * Checks the shape of `value` (any module's export) and returns it typed. `loadedFrom`: the path
 * of the module it is the default export of, its `processModule` when it names none.
 * @throws InvalidInitializerError naming what is missing or of the wrong type.
 */
export function assertMemoryBackendInitializer(
  value: unknown,
  loadedFrom?: string,
): MemoryBackendInitializer {
  if (loadedFrom !== undefined && typeof value === 'object' && value !== null) {
    const named = (value as Partial<MemoryBackendInitializer>).processModule;
    // A view of the same object (methods and getters included), with the module filled in.
    if (!named)
      value = Object.assign(Object.create(value), { processModule: { path: loadedFrom } });
  }
  if (typeof value !== 'object' || value === null) {
    throw new InvalidInitializerError(
      `expected an object { name, createBackend, … }, got ${value === null ? 'null' : typeof value}`,
    );
  }
  const candidate = value as Partial<MemoryBackendInitializer>;
  if (typeof candidate.name !== 'string' || candidate.name.trim() === '') {
    throw new InvalidInitializerError('`name` must be a non-empty string');
  }
  if (typeof candidate.createBackend !== 'function') {
    throw new InvalidInitializerError(
      `\`createBackend\` of "${candidate.name}" must be a function`,
    );
  }
  for (const optional of ['destroyBackend', 'storageOf', 'openStorage', 'afterAll'] as const) {
    if (candidate[optional] !== undefined && typeof candidate[optional] !== 'function') {
      throw new InvalidInitializerError(
        `\`${optional}\` of "${candidate.name}" must be a function`,
      );
    }
  }
  if (candidate.capabilities?.crossProcess) {
    const lacking = (['storageOf', 'openStorage', 'processModule'] as const).filter(
      (key) => candidate[key] === undefined,
    );
    if (lacking.length > 0) {
      throw new InvalidInitializerError(
        `"${candidate.name}" says crossProcess but has no ${lacking.join(', ')}`,
      );
    }
  }
  return candidate as MemoryBackendInitializer;
}
