import type { AuditLog, AuditLogLimits } from './audit-log.interface';
import type { MemoryBackend } from './backend.interface';
import type { CheckpointStorage } from './checkpoint-storage.interface';
import type { CompactionJobStore } from './compaction-job-store.interface';
import type { LeaseStore } from './lease-store.interface';
import type { MemoryReadiness } from './memory-readiness';
import type { SettingsReader } from './settings-reader';
import type { StoreObserver } from './store-observer.interface';

/** One environment variable a driver reads, and the `agent-memory` flag that overrides it. */
export interface DriverSetting {
  /** The variable: `DATABASE_URL`. */
  env: string;
  /** The command-line flag, without dashes (`url`); absent when only the servers read it. */
  flag?: string;
  /** What it sets, for usage texts: `the PostgreSQL database`. */
  summary: string;
  /** The value used when it is unset, as shown to users; absent when it has none. */
  default?: string;
}

/** What {@link MemoryDriver.create} may be given besides the settings. */
export interface DriverContext {
  /** Told about compare-and-swap retries and session sizes, by the stores that report them. */
  observer?: StoreObserver;
  /**
   * Open for reading only (`agent-memory export`): a store that can honour it writes nothing,
   * not even housekeeping files.
   */
  readOnly?: boolean;
  /**
   * Options of the store's own factory (`postgresBackend`, `natsBackend`, …) that no setting
   * covers, such as `pruneCompacted` or a pool size: passed to the factory after the settings,
   * so one of the same name wins. The factory checks them as it checks any option.
   */
  options?: Readonly<Record<string, unknown>>;
}

/** Options of {@link MemoryDriver.auditLog}. */
export interface AuditLogSatelliteOptions {
  /** How many entries, and for how long, the log keeps. */
  limits: AuditLogLimits;
}

/** Options of {@link MemoryDriver.compactionJobStore}. */
export interface CompactionJobStoreSatelliteOptions {
  /** How long a job's state is kept after its last change (ms); the store's default otherwise. */
  ttlMs?: number;
  /**
   * The clock (epoch ms) a job's time to live is counted on, for tests that move time by hand;
   * default `Date.now`. A store whose server keeps the time (NATS) ignores it.
   */
  now?: () => number;
}

/**
 * One store described by itself: its name, the settings it reads, how it is built from them, and
 * what it owns next to its sessions (readiness probe, audit log, compaction-job store, retention
 * lease). The apps, the `agent-memory` command and the configuration iterate a list of drivers
 * (`BUILT_IN_DRIVERS`) instead of knowing each store.
 *
 * Importing a driver loads none of its store's optional packages: `create` (and the satellites,
 * which need a built backend) load them when called.
 * @typeParam B the store's backend, as `create` returns it.
 * @typeParam S the store's settings, as `readSettings` returns them.
 */
export interface MemoryDriver<B extends MemoryBackend = MemoryBackend, S extends object = object> {
  /** `MemoryBackend.kind` of what it builds, and the `MEMORY_BACKEND` value that chooses it. */
  readonly kind: string;
  /** The store in a few words, for usage texts: `PostgreSQL (needs typeorm and pg)`. */
  readonly summary: string;
  /**
   * False for a store whose sessions live only inside one process: the command-line tools
   * (export, import, mcp) cannot reach them.
   */
  readonly durable: boolean;
  /** Every variable `readSettings` reads, with its flag and default. */
  readonly settings: readonly DriverSetting[];
  /**
   * Reads this store's settings, reporting each bad or missing one on `reader` (never throws).
   * `MEMORY_BACKEND=<kind>` chose it.
   */
  readSettings(reader: SettingsReader): S;
  /** The store the settings name, for messages (never a URL: it may hold a password). */
  describeSettings(settings: S): string;
  /**
   * Builds the backend.
   * @throws MissingPeerError naming the optional package to install when it is missing.
   * @throws what the store's factory throws (the server is unreachable).
   */
  create(settings: S, context?: DriverContext): Promise<B>;
  /**
   * Whether `backend`, a store with its decorators taken off (`innermostBackend`), is one of
   * this store's. `driverOfBackend` takes the decorators off first.
   */
  owns(backend: MemoryBackend): boolean;
  /** The built store, for messages (never a URL). */
  describe(backend: B): string;
  /** Whether the store can serve now, with what it learned; may throw (the caller times it out). */
  readiness(backend: B): Promise<MemoryReadiness>;
  /** Details for a readiness answer when the probe failed or timed out. */
  readinessDetails(backend: B): Record<string, unknown>;
  /** The audit log next to the sessions, so every process on this store shares one. */
  auditLog(backend: B, options: AuditLogSatelliteOptions): Promise<AuditLog>;
  /**
   * The compaction-job store next to the sessions, so every process on this store answers for
   * every job; undefined for a store of one process (the module's in-process default serves).
   */
  compactionJobStore(
    backend: B,
    options?: CompactionJobStoreSatelliteOptions,
  ): Promise<CompactionJobStore | undefined>;
  /** Where one-at-a-time leases (the retention sweep's) are kept, next to the sessions. */
  leaseStore(backend: B): Promise<LeaseStore>;
  /** A folder whose filesystem's free space matters to the store (JSON files), else null. */
  storagePath(backend: B): string | null;
  /**
   * Every session id the store holds, found without reading the sessions, for a store whose
   * `list` leaves out sessions that do not decode (so that an export can name them); absent
   * when `list` is complete.
   */
  storedSessionIds?(backend: B): Promise<string[]>;
  /**
   * Where the LangGraph checkpointer (`/langgraph`) keeps a thread's checkpoints, writes and
   * message log, next to the sessions; absent for a store that keeps none.
   */
  checkpoints?(backend: B): Promise<CheckpointStorage>;
}
