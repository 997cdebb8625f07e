/**
 * `@agent-memory/api-contract`: the admin API's JSON shapes, shared by the server (`apps/api`) and
 * the dashboard (`apps/admin`). Types only: import it with `import type`, so nothing of it reaches
 * a bundle and the browser never loads server code.
 */
export type * from './admin-api.types';
export type * from './recall-api.types';
export type * from './retention-api.types';
