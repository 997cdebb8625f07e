/** The PostgreSQL store's defaults (plain values: importing this loads nothing). */

/** The messages table of the PostgreSQL store, by default. */
export const DEFAULT_MEMORY_TABLE = 'conversation_memory';

/** Wait for a new PostgreSQL connection, by default (ms). */
export const DEFAULT_PG_CONNECT_TIMEOUT_MS = 5000;

/** `statement_timeout` of the PostgreSQL store's connections, by default (ms). */
export const DEFAULT_PG_STATEMENT_TIMEOUT_MS = 15_000;

/** Connections of the pool `postgresBackend` opens itself, by default. */
export const DEFAULT_PG_POOL_SIZE = 10;
