import { leaseHeldByAnother, type LeaseRecord, type LeaseStore } from './lease-store.interface';

/** Leases of one process (the in-process store's, and a default for tests). */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, LeaseRecord>();

  async claim(name: string, owner: string, expiresAt: number, now: number): Promise<boolean> {
    if (leaseHeldByAnother(this.leases.get(name) ?? null, owner, now)) return false;
    this.leases.set(name, { owner, expiresAt });
    return true;
  }

  async release(name: string, owner: string): Promise<void> {
    if (this.leases.get(name)?.owner === owner) this.leases.delete(name);
  }

  async get(name: string): Promise<LeaseRecord | null> {
    const lease = this.leases.get(name);
    return lease ? { ...lease } : null;
  }
}
