/** A lease as a {@link LeaseStore} keeps it. */
export interface LeaseRecord {
  /** The holder; opaque, random per holder. */
  owner: string;
  /** Epoch ms until which the holder vouches for it; past it anyone may take it. */
  expiresAt: number;
}

/**
 * Named leases shared by every process on one store: work only one process may do at a time (the
 * retention sweep) is done by whoever holds its lease. Each store keeps them in a record of its
 * own next to its sessions (a table row, a KV key, a file, a map in this process).
 */
export interface LeaseStore {
  /**
   * Takes the lease `name` for `owner` until `expiresAt`, or renews it when `owner` holds it,
   * unless another owner holds it unexpired at `now` (epoch ms); one atomic step against other
   * processes: of two claiming a free lease at once, exactly one gets it.
   * @returns whether `owner` holds the lease now.
   */
  claim(name: string, owner: string, expiresAt: number, now: number): Promise<boolean>;
  /** Gives the lease up when `owner` holds it (else leaves the holder's lease alone). */
  release(name: string, owner: string): Promise<void>;
  /** The lease as stored (expired or not), or null. */
  get(name: string): Promise<LeaseRecord | null>;
}

/** Whether `stored` is held by someone other than `owner` at `now`. */
export function leaseHeldByAnother(
  stored: LeaseRecord | null,
  owner: string,
  now: number,
): boolean {
  return stored !== null && stored.owner !== owner && stored.expiresAt > now;
}
