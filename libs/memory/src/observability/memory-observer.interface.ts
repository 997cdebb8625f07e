import type { BackendKind } from '../core/backend.interface';

/** One call on a backend or on a session's store, as {@link instrumentBackend} reports it. */
export interface MemoryOperationEvent {
  backend: BackendKind;
  /** The method called: `save`, `retrieve`, `loadSnapshot`, `list`, `inspect`, `open`, … */
  operation: string;
  /** The session it was about, or null for backend-wide calls (`list`, `check`). */
  sessionId: string | null;
  durationMs: number;
  /** Null on success; the `MemoryError` code, or `UNKNOWN` for any other error. */
  errorCode: string | null;
}

/**
 * What the instrumented backend tells about each call, for metrics and logs. It is told after the
 * call settles, synchronously: keep it cheap and never throw (a throw is swallowed).
 */
export interface MemoryObserver {
  operation(event: MemoryOperationEvent): void;
}
