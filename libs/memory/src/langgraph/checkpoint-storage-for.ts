import type { MemoryBackend } from '../core/backend.interface';
import type { CheckpointStorage } from '../core/checkpoint-storage.interface';
import { driverOfBackend } from '../core/driver-lookup';
import type { MemoryDriver } from '../core/memory-driver';
import { BUILT_IN_DRIVERS } from '../drivers/built-in-drivers';

/**
 * Where `backend`'s store keeps LangGraph checkpoints: its driver's `checkpoints` satellite,
 * reached under any decorator (`instrumentBackend`, `withRecall`). The PostgreSQL and NATS
 * storages are loaded only when their store is used, so their clients stay optional.
 * @throws TypeError for a store whose driver keeps no checkpoints, or that no driver owns.
 */
export async function checkpointStorageFor(
  backend: MemoryBackend,
  drivers: readonly MemoryDriver[] = BUILT_IN_DRIVERS,
): Promise<CheckpointStorage> {
  const found = driverOfBackend(drivers, backend);
  if (!found?.driver.checkpoints) {
    throw new TypeError(
      `MemoryCheckpointSaver: a ${String(backend.kind)} backend keeps no checkpoints (its driver has no checkpoints storage)`,
    );
  }
  return found.driver.checkpoints(found.store);
}
