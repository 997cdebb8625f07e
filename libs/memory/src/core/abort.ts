import type { CallOptions } from './memory.interface';

/** Rejects with the signal's reason when the call was aborted before it starts its work. */
export function throwIfAborted(opts?: CallOptions): void {
  opts?.signal?.throwIfAborted();
}
