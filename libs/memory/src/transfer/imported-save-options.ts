import type { SaveOptions } from '../core/memory.interface';

/**
 * The options of one imported batch's save: the one place that decides what the target store is
 * told of the batch's original save time (`savedAt`, ISO, absent when the source did not know it).
 * Until stores take a save time, each records its own, so an imported entry's `savedAt` is the
 * time of the import.
 */
export function importedSaveOptions(
  _savedAt: string | undefined,
  signal?: AbortSignal,
): SaveOptions {
  return signal ? { signal } : {};
}
