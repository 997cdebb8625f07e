/** The admin API's JSON shapes, shared with the server (types only, erased from the bundle). */
export type * from '@agent-memory/api-contract';
