import type { MemoryBackend } from './backend.interface';

/**
 * A backend that decorates another one (tracing, semantic recall): it answers as the backend it
 * wraps and says which one that is, so that what needs the store itself (its driver's audit log,
 * job store, readiness) reaches it without a cast.
 */
export interface WrappingBackend extends MemoryBackend {
  /** The backend this one decorates (itself maybe a decorator). */
  unwrap(): MemoryBackend;
}

/** Whether `backend` decorates another backend. */
export function isWrappingBackend(backend: MemoryBackend): backend is WrappingBackend {
  return typeof (backend as Partial<WrappingBackend>).unwrap === 'function';
}

/** The store under every decorator of `backend` (`backend` itself when it decorates nothing). */
export function innermostBackend(backend: MemoryBackend): MemoryBackend {
  let inner = backend;
  // Bounded, so that a decorator that unwraps to itself cannot loop for ever.
  for (let depth = 0; depth < 32 && isWrappingBackend(inner); depth++) {
    const next = inner.unwrap();
    if (next === inner) break;
    inner = next;
  }
  return inner;
}
