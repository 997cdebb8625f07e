/**
 * `@agent-memory/memory`: the contract, the in-process and JSON-file stores, compaction, the token
 * counter, JSON Lines export and import, the defaults and the Nest module. What needs an optional
 * package has an entry point of its own: `/postgres` (`typeorm`, `pg`), `/nats` (`nats`), `/health`
 * (`@nestjs/terminus`), `/rag` (semantic recall) and `/observability` (tracing), so importing this
 * never loads a database or broker client. Every store's driver (`BUILT_IN_DRIVERS`) is here:
 * each loads its optional packages only when it builds a backend.
 */
export * from './core';
export * from './simple';
export * from './jsonfile';
export * from './compaction';
export * from './retention';
export * from './token-count';
export * from './transfer';
export * from './nest';
export * from './drivers';
