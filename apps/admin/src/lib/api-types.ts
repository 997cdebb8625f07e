/** The admin API's JSON shapes, shared with the server (types only, erased from the bundle). */
export type * from '../../../api/src/contract/admin-api.types';
export type * from '../../../api/src/contract/recall-api.types';
