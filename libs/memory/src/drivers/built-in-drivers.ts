import type { MemoryDriver } from '../core/memory-driver';
import { jsonFileDriver } from '../jsonfile/json-file.driver';
import { natsDriver } from '../nats/nats.driver';
import { postgresDriver } from '../postgres/postgres.driver';
import { simpleDriver } from '../simple/simple.driver';

/**
 * The stores this package ships, each described by its driver: what `MEMORY_BACKEND` chooses
 * from, what the command-line tools, the health checks and the admin server look a backend's
 * store up in. Importing it loads no optional package (each driver loads its own in `create`).
 * A store of your own is a driver too: pass `[...BUILT_IN_DRIVERS, yourDriver]` where a list of
 * drivers is taken.
 */
export const BUILT_IN_DRIVERS: readonly MemoryDriver[] = Object.freeze<MemoryDriver[]>([
  simpleDriver,
  jsonFileDriver,
  postgresDriver,
  natsDriver,
]);
