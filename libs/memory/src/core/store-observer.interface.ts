import type { BackendKind } from './backend.interface';

/** What a session holds after a write, against the most it may hold. */
export interface SessionSizeEvent {
  backend: BackendKind;
  sessionId: string;
  /** Bytes the session takes after the write (the NATS value and its header; the JSON files). */
  bytes: number;
  /** The most it may take: past it, a write is refused with `SESSION_TOO_LARGE`. */
  limitBytes: number;
}

/**
 * What a store tells about its own work beyond the calls `instrumentBackend` times, for metrics:
 * give one to a backend as its `observer` option (`natsBackend`, `jsonFileBackend`). Stores call it
 * synchronously and ignore what it throws; keep it cheap. Library code never imports the
 * application's metrics: this interface is the seam.
 */
export interface StoreObserver {
  /** A write lost a compare-and-swap race to another writer and is tried again (NATS). */
  casRetry?(backend: BackendKind, retries?: number): void;
  /** A write stored a session of this size. */
  sessionSize?(event: SessionSizeEvent): void;
}

/** Calls `notify` on `observer`, never letting an observer's failure reach the store. */
export function tellObserver(
  observer: StoreObserver | undefined,
  notify: (observer: StoreObserver) => void,
): void {
  if (!observer) return;
  try {
    notify(observer);
  } catch {
    // Metrics must never fail a write.
  }
}
