/**
 * The sweep's lease on each store's own lease record (in-process map, PostgreSQL row, NATS KV key,
 * JSON file), each store built and its lease store made by its driver: two leases stand for two
 * replicas on one store; time is an injected clock.
 */
import { IsolatedStores } from '@agent-memory/test-support/isolated-stores';
import type { CompactionJobStore } from '../core/compaction-job-store.interface';
import type { LeaseStore } from '../core/lease-store.interface';
import { InMemoryCompactionJobStore } from '../compaction/in-memory-compaction-job.store';
import { BUILT_IN_DRIVERS } from '../drivers/built-in-drivers';
import { compactionJobLeases, RETENTION_SWEEP_LEASE, RetentionLease } from './retention-lease';

const LEASE_MS = 30_000;

describe('the retention sweep lease', () => {
  const stores = new IsolatedStores('lease');
  let nowMs = Date.UTC(2026, 0, 1);
  const now = () => nowMs;

  afterAll(() => stores.cleanup());

  describe.each(BUILT_IN_DRIVERS.map((driver) => ({ kind: driver.kind, driver })))(
    'on the $kind store',
    ({ driver }) => {
      let leases: LeaseStore;
      let one: RetentionLease;
      let two: RetentionLease;

      beforeEach(async () => {
        nowMs = Date.UTC(2026, 0, 1);
        leases = await driver.leaseStore(await stores.create(driver));
        one = new RetentionLease(leases, LEASE_MS, now);
        two = new RetentionLease(leases, LEASE_MS, now);
      });

      it('of two replicas taking a free lease at once, exactly one gets it', async () => {
        for (let round = 0; round < 5; round++) {
          const got = await Promise.all([one.acquire(), two.acquire()]);
          expect(got.filter(Boolean)).toHaveLength(1);
          await (got[0] ? one : two).release();
        }
      });

      it('the holder renews it; the other gets it once released', async () => {
        expect(await one.acquire()).toBe(true);
        nowMs += LEASE_MS / 2;
        expect(await one.acquire()).toBe(true);
        expect(await leases.get(RETENTION_SWEEP_LEASE)).toEqual({
          owner: one.owner,
          expiresAt: nowMs + LEASE_MS,
        });
        expect(await two.acquire()).toBe(false);
        await one.release();
        expect(await leases.get(RETENTION_SWEEP_LEASE)).toBeNull();
        expect(await two.acquire()).toBe(true);
      });

      it('a holder that stops renewing loses it when its lease is over', async () => {
        expect(await one.acquire()).toBe(true);
        nowMs += LEASE_MS - 1;
        expect(await two.acquire()).toBe(false);
        nowMs += 2;
        expect(await two.acquire()).toBe(true);
        // The late holder's release leaves the new holder's lease alone.
        await one.release();
        expect((await leases.get(RETENTION_SWEEP_LEASE))?.owner).toBe(two.owner);
        expect(await one.acquire()).toBe(false);
      });
    },
  );

  describe('kept in a compaction job store (the deprecated `jobs` option)', () => {
    it('excludes a second holder, and frees the lease on release', async () => {
      const leases = compactionJobLeases(new InMemoryCompactionJobStore(now), now);
      const one = new RetentionLease(leases, LEASE_MS, now);
      const two = new RetentionLease(leases, LEASE_MS, now);
      expect(await one.acquire()).toBe(true);
      expect(await two.acquire()).toBe(false);
      await one.release();
      expect(await two.acquire()).toBe(true);
    });

    it('refuses a job store without claim, saying why', () => {
      const legacy: CompactionJobStore = {
        put: async () => undefined,
        putIfNewer: async () => true,
        get: async () => null,
        deleteForSessions: async () => 0,
      };
      expect(() => compactionJobLeases(legacy, now)).toThrow(/claim\(\)/);
    });
  });
});
