import { DEFAULT_MEMORY_TABLE } from './postgres.defaults';
/** One plain SQL identifier: a letter or `_`, then up to 62 letters, digits or `_`. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** Postgres truncates identifiers beyond 63 bytes; the longest suffix we append must still fit. */
const MAX_IDENTIFIER_LENGTH = 63;
const LONGEST_SUFFIX = '_migrations';

export { DEFAULT_MEMORY_TABLE } from './postgres.defaults';

/** The tables and index one `table` option stands for, as quoted, schema-qualified SQL names. */
export interface MemoryTableNames {
  /** The `table` option as given, such as `conversation_memory` or `app.chat`. */
  readonly table: string;
  /** The schema from a `schema.` prefix, or null for the connection's current schema. */
  readonly schema: string | null;
  /** The messages table's own name, unqualified and unquoted. */
  readonly base: string;
  /** One row per message. */
  readonly messages: string;
  /** One snapshot row per session. */
  readonly snapshots: string;
  /** One row per session: counters, `updated_at`, metadata. */
  readonly sessions: string;
  /** One row per remembered idempotency key: the key, its batch's cursors and digest. */
  readonly keys: string;
  /** The TypeORM migrations table of these tables, unqualified and unquoted. */
  readonly migrationsTable: string;
  /** The listing index on the sessions table, unqualified and unquoted. */
  readonly recentIndex: string;
  /**
   * The trigger functions that keep the sessions table true to the rows, and the save procedure
   * (`save`), schema-qualified and quoted.
   */
  readonly functions: {
    readonly added: string;
    readonly removed: string;
    readonly emptied: string;
    /** Copies a snapshot's `upto_seq` into its session's row (`snapshot_upto`). */
    readonly snapshotMoved: string;
    readonly save: string;
    /** The save procedure of keyed and unkeyed batches (`<table>_save_group`). */
    readonly saveGroup: string;
    /** Deletes the keys of deleted sessions rows (`<table>_keys_gone`). */
    readonly keysGone: string;
  };
  /**
   * The text the per-session advisory lock key is hashed from, before the session id: writers of
   * one session of these tables take `pg_advisory_xact_lock` on {@link sessionLockKeySql}.
   */
  readonly lockKey: string;
}

/**
 * The SQL of a session's advisory lock key, for the session given by `session` (a parameter such
 * as `$1`, or a column or argument name): the store's statements and the save procedure take the
 * same lock through it. The key text holds only validated identifiers, so it is safe in a literal.
 */
export function sessionLockKeySql(names: MemoryTableNames, session: string): string {
  return `hashtextextended('${names.lockKey}' || ${session}, 0)`;
}

/** The triggers on the messages table (names are per table, so they need no prefix). */
export const MEMORY_TRIGGERS = {
  added: 'agent_memory_added',
  removed: 'agent_memory_removed',
  emptied: 'agent_memory_emptied',
} as const;

/** The trigger on the sessions table that deletes a deleted session's idempotency keys. */
export const KEYS_TRIGGER = 'agent_memory_keys_gone';

/** The trigger on the snapshots table that keeps the sessions' `snapshot_upto` true. */
export const SNAPSHOTS_TRIGGER = 'agent_memory_snapshot_upto';

/**
 * Validates the `table` option (`name` or `schema.name`, each `^[A-Za-z_][A-Za-z0-9_]{0,62}$`,
 * short enough that `name_migrations` stays within 63 characters) and derives the table names.
 * Runs before any SQL, so only validated identifiers are ever spliced into a statement.
 * @throws RangeError naming the table and what is wrong with it.
 */
export function memoryTableNames(table: string = DEFAULT_MEMORY_TABLE): MemoryTableNames {
  // Checked and derived once per table name: every opened session asks again.
  const known = typeof table === 'string' ? namesByTable.get(table) : undefined;
  if (known) return known;
  const names = deriveMemoryTableNames(table);
  if (namesByTable.size >= MAX_REMEMBERED_TABLES) namesByTable.clear();
  namesByTable.set(table, names);
  return names;
}

/** Table names already checked, by the `table` option; a process uses very few. */
const namesByTable = new Map<string, MemoryTableNames>();
const MAX_REMEMBERED_TABLES = 64;

function deriveMemoryTableNames(table: string): MemoryTableNames {
  if (typeof table !== 'string') {
    throw new RangeError(
      `table must be a string such as "conversation_memory", got ${String(table)}`,
    );
  }
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
    throw new RangeError(
      `invalid table name ${JSON.stringify(table)}: use "name" or "schema.name", each starting ` +
        'with a letter or "_" followed by letters, digits or "_" (at most 63 characters)',
    );
  }
  const base = parts[parts.length - 1]!;
  if (base.length + LONGEST_SUFFIX.length > MAX_IDENTIFIER_LENGTH) {
    throw new RangeError(
      `invalid table name ${JSON.stringify(table)}: "${base}" is ${base.length} characters long; ` +
        `at most ${MAX_IDENTIFIER_LENGTH - LONGEST_SUFFIX.length} fit, as "${LONGEST_SUFFIX}" and ` +
        'other suffixes are appended to it',
    );
  }
  const schema = parts.length === 2 ? parts[0]! : null;
  if (schema?.toLowerCase().startsWith('pg_')) {
    // PostgreSQL reserves these names for its system schemas: CREATE SCHEMA would refuse it.
    throw new RangeError(
      `invalid table name ${JSON.stringify(table)}: schema names starting with "pg_" are reserved by PostgreSQL`,
    );
  }
  const qualified = (name: string) => (schema ? `"${schema}"."${name}"` : `"${name}"`);
  return {
    table,
    schema,
    base,
    messages: qualified(base),
    snapshots: qualified(`${base}_snapshots`),
    sessions: qualified(`${base}_sessions`),
    keys: qualified(`${base}_keys`),
    migrationsTable: `${base}_migrations`,
    recentIndex: `${base}_recent_idx`,
    functions: {
      added: qualified(`${base}_added`),
      removed: qualified(`${base}_removed`),
      emptied: qualified(`${base}_emptied`),
      snapshotMoved: qualified(`${base}_snapshot_moved`),
      save: qualified(`${base}_save`),
      saveGroup: qualified(`${base}_save_group`),
      keysGone: qualified(`${base}_keys_gone`),
    },
    lockKey: `agent-memory:${schema ?? ''}.${base}:`,
  };
}
