import type { MemoryBackend } from './backend.interface';
import type { MemoryDriver } from './memory-driver';
import { innermostBackend } from './wrapping-backend';

/** A backend's store (under its decorators) with the driver that owns it. */
export interface DrivenBackend<B extends MemoryBackend = MemoryBackend> {
  driver: MemoryDriver<B>;
  /** The store itself, under every decorator. */
  store: B;
}

/** The driver of `backend`'s store among `drivers`, or null when none owns it (a store of yours). */
export function driverOfBackend(
  drivers: readonly MemoryDriver[],
  backend: MemoryBackend,
): DrivenBackend | null {
  const store = innermostBackend(backend);
  const driver = drivers.find((candidate) => candidate.owns(store));
  return driver ? { driver, store } : null;
}

/** The driver whose `kind` is `kind`, or undefined. */
export function driverOfKind(
  drivers: readonly MemoryDriver[],
  kind: string,
): MemoryDriver | undefined {
  return drivers.find((driver) => driver.kind === kind);
}

/**
 * The driver whose `kind` is `kind`.
 * @throws RangeError listing the kinds there are.
 */
export function requireDriver(drivers: readonly MemoryDriver[], kind: string): MemoryDriver {
  const driver = driverOfKind(drivers, kind);
  if (!driver) {
    throw new RangeError(
      `no memory driver "${kind}": one of ${drivers.map((d) => d.kind).join(', ')}`,
    );
  }
  return driver;
}
