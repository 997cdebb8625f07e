import type { SaveOptions } from '../core/memory.interface';

/**
 * The options of one imported batch's save: the one place that decides what the target store is
 * told of the batch's original save time. Each entry keeps its `savedAt` (`SaveOptions.savedAt`);
 * a batch the source did not date (Phero's data) gets the time of the import. The key makes the
 * save store once however many imports of the line run (see `ImportKeyChain`).
 */
export function importedSaveOptions(
  savedAt: string | undefined,
  signal: AbortSignal | undefined,
  idempotencyKey: string,
): SaveOptions {
  return {
    idempotencyKey,
    ...(savedAt !== undefined ? { savedAt } : {}),
    ...(signal ? { signal } : {}),
  };
}
