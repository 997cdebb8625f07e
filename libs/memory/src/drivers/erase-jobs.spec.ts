/**
 * `backend.erase({ resource })` on each built-in store also removes the erased sessions' compaction
 * jobs from the job store its driver keeps next to them (a job's result holds the summary it
 * wrote), and leaves other sessions' jobs alone.
 */
import { randomUUID } from 'node:crypto';
import { IsolatedStores } from '@agent-memory/test-support/isolated-stores';
import { RESOURCE_META_KEY } from '../core/backend.interface';
import type { StoredCompactionJob } from '../core/compaction-job-store.interface';
import { userMessage } from '../core/message';
import { BUILT_IN_DRIVERS } from './built-in-drivers';

describe('erase removes the compaction jobs of the sessions it erases', () => {
  const stores = new IsolatedStores('erase_jobs');

  afterAll(() => stores.cleanup());

  const job = (sessionId: string): StoredCompactionJob => {
    const now = Date.now();
    return {
      id: randomUUID(),
      sessionId,
      force: false,
      dryRun: false,
      state: 'done',
      createdAt: new Date(now).toISOString(),
      finishedAt: new Date(now).toISOString(),
      owner: 'test',
      leaseExpiresAt: now,
      expiresAt: now + 3_600_000,
    };
  };

  it.each(BUILT_IN_DRIVERS.map((driver) => ({ kind: driver.kind, driver })))(
    'on the $kind store',
    async ({ driver }) => {
      const backend = await stores.create(driver);
      const jobs = await driver.compactionJobStore(backend);
      for (const [id, resource] of [
        ['gone', 'alice'],
        ['kept', 'bob'],
      ] as const) {
        const session = await backend.open(id);
        await session.setMeta(RESOURCE_META_KEY, resource);
        await session.save([userMessage(`hello from ${resource}`)]);
      }
      if (!jobs) {
        // A store of one process keeps its jobs in the module's in-process store, not its own.
        expect((await backend.erase({ resource: 'alice' })).sessionIds).toEqual(['gone']);
        return;
      }
      const [gone, kept] = [job('gone'), job('kept')];
      await jobs.put(gone);
      await jobs.put(kept);

      expect((await backend.erase({ resource: 'alice' })).sessionIds).toEqual(['gone']);

      expect(await jobs.get(gone.id)).toBeNull();
      expect(await jobs.get(kept.id)).toMatchObject({ sessionId: 'kept' });
      // Idempotent: nothing left to erase, the other session's job still there.
      expect(await backend.erase({ resource: 'alice' })).toMatchObject({ sessions: 0 });
      expect(await jobs.get(kept.id)).not.toBeNull();
    },
  );
});
