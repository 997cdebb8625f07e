import type { CompactionJobError } from '../core/compaction-job';
import { BackendUnavailableError, MemoryError } from '../core/errors';

/** An error as the admin API and the NATS reply carry it. */
export function describeCompactionError(error: unknown): CompactionJobError {
  // A job's error is shown to API clients: an outage is described without the driver's text.
  if (error instanceof BackendUnavailableError)
    return { name: error.name, code: error.code, message: error.summary };
  if (error instanceof MemoryError)
    return { name: error.name, code: error.code, message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
