/**
 * The project's four stores as conformance initializers (`simpleInitializer()`, …), each built
 * from its driver, and the one factory that opens a store's storage by its `BackendSpec`: the
 * suites' replicas, the store processes of the cross-process tests
 * (`test/support/store-process.script.ts`) and the package's child processes (through
 * `storeOpener`) all open storage with `openBackend`.
 */
import type {
  ConformanceBackendOptions,
  MemoryBackendCapabilities,
  MemoryBackendInitializer,
} from '@agent-memory/conformance';
import {
  BUILT_IN_DRIVERS,
  requireDriver,
  type MemoryBackend,
  type MemoryDriver,
  type SummarizationOptions,
} from '@agent-memory/memory';
import { IsolatedStores, settingsFrom } from '../support/isolated-stores';

/**
 * Which storage a backend opens, as JSON a replica or a child process opens again: the store's
 * driver and what it is given.
 */
export interface BackendSpec {
  /** The driver's `kind`. */
  kind: string;
  /** The variables the driver reads (`DATABASE_URL`, `MEMORY_DIR`, …), pointing at the storage. */
  env: Record<string, string>;
  /** Options of the store's factory that no variable covers (`DriverContext.options`). */
  options?: Record<string, unknown>;
  /** Options a child process adds to `options` (a small pool: many of them run at once). */
  childOptions?: Record<string, unknown>;
}

/** The spec of `driver`'s store on the storage `env` names. */
export function backendSpec(
  driver: MemoryDriver,
  env: Record<string, string>,
  options?: Record<string, unknown>,
): BackendSpec {
  return { kind: driver.kind, env, ...(options ? { options } : {}) };
}

/**
 * The built-in driver `spec` names.
 * @throws RangeError naming the kinds there are.
 */
export function driverOf(spec: BackendSpec): MemoryDriver {
  return builtInDriver(spec.kind);
}

const builtInDriver = (kind: string) => requireDriver(BUILT_IN_DRIVERS, kind);

/** The options the project's suites vary: the package's, and the deprecated one of its own. */
export interface BackendOptions extends ConformanceBackendOptions {
  /** The deprecated option, for legacy-summarization.conformance.ts. */
  summarization?: SummarizationOptions;
}

/**
 * Opens the backend `spec` names through its driver: the one factory the suites and the store
 * processes share. `opts` are passed to the store's factory after the spec's own options.
 * @throws Error naming the variables the driver refused.
 */
export async function openBackend(
  spec: BackendSpec,
  opts: BackendOptions = {},
): Promise<MemoryBackend> {
  const { childProcess, ...common } = opts;
  const driver = driverOf(spec);
  const options = { ...spec.options, ...(childProcess ? spec.childOptions : {}), ...common };
  return driver.create(settingsFrom(driver, spec.env), { options });
}

/** What a child process of the package's cross-process tests loads (`processModule`). */
export const storeOpener: Pick<MemoryBackendInitializer<BackendSpec>, 'openStorage'> = {
  openStorage: (spec, opts) => openBackend(spec, opts),
};

/** What an initializer declares about its store besides the driver. */
interface DeclaredStore {
  /** The suites' name for it; default the driver's kind. */
  name?: string;
  capabilities: MemoryBackendCapabilities;
  /** Options of the store's factory every backend gets. */
  options?: Record<string, unknown>;
  /** Options a child process's backend adds. */
  childOptions?: Record<string, unknown>;
}

/**
 * The initializer of `driver`'s store: each backend on fresh data (`IsolatedStores`), removed
 * after the suite. A durable store's storage is shared by spec with replicas and child processes;
 * a store of one process has none to share.
 */
function driverInitializer(
  driver: MemoryDriver,
  declared: DeclaredStore,
): MemoryBackendInitializer<BackendSpec> {
  const { name = driver.kind, capabilities, options, childOptions } = declared;
  const stores = new IsolatedStores(`conf_${driver.kind}`);
  const specs = new WeakMap<MemoryBackend, BackendSpec>();
  const specOf = (backend: MemoryBackend): BackendSpec => {
    const spec = specs.get(backend);
    if (!spec) throw new Error(`this ${name} backend was not made by its initializer`);
    return spec;
  };
  const initializer: MemoryBackendInitializer<BackendSpec> = {
    name,
    capabilities: { pruneCompactedOption: true, ...capabilities },
    async createBackend(opts?: BackendOptions) {
      const spec: BackendSpec = {
        ...backendSpec(driver, stores.envOf(driver), options),
        ...(childOptions ? { childOptions } : {}),
      };
      const backend = await openBackend(spec, opts);
      specs.set(backend, spec);
      return backend;
    },
    afterAll: () => stores.cleanup(),
  };
  if (!driver.durable) return initializer;
  return {
    ...initializer,
    storageOf: specOf,
    openStorage: (spec, opts) => openBackend(spec, opts),
    processModule: { path: __filename, exportName: 'storeOpener' },
  };
}

/** The in-process store: no storage to share. */
export const simpleInitializer = (): MemoryBackendInitializer<BackendSpec> =>
  driverInitializer(builtInDriver('simple'), {
    capabilities: {},
    options: { capacity: 1000 },
  });

/** One folder per backend; every save locks the session's file, so processes can share it. */
export const jsonFileInitializer = (): MemoryBackendInitializer<BackendSpec> =>
  driverInitializer(builtInDriver('jsonfile'), { capabilities: { crossProcess: true } });

/** One schema per backend; `preparedStatements: false` for the run through PgBouncer's mode. */
export const postgresInitializer = (
  declared: { preparedStatements?: boolean; name?: string } = {},
): MemoryBackendInitializer<BackendSpec> => {
  const { name, preparedStatements } = declared;
  return driverInitializer(builtInDriver('postgres'), {
    name,
    capabilities: { crossProcess: true, consecutiveSaveCursors: true },
    ...(preparedStatements === undefined ? {} : { options: { preparedStatements } }),
    // Many child processes open the storage at once: each keeps a small pool.
    childOptions: { poolSize: 2 },
  });
};

/** One KV bucket per backend. */
export const natsInitializer = (): MemoryBackendInitializer<BackendSpec> =>
  driverInitializer(builtInDriver('nats'), {
    capabilities: { crossProcess: true, prunesCompactedByDefault: true },
  });
