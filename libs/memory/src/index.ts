/**
 * `@agent-memory/memory`: the contract, the in-process and JSON-file stores, compaction and the
 * Nest module. Optional backends have entry points of their own (`/postgres`, `/nats`, `/rag`,
 * `/health`), so importing this never loads `pg` or `nats`.
 */
export * from './core';
export * from './simple';
export * from './jsonfile';
export * from './compaction';
export * from './nest';
