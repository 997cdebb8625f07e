/**
 * Metadata, clear, inspect, list, delete and the health check of the backend port
 * (docs/architecture.md#the-contract-in-detail).
 */
import { userMessage } from '@agent-memory/memory';
import { conversation, texts } from '../fixtures';
import type { ConformanceContext } from '../suite-context';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

export function describeMetadataListingConformance(ctx: ConformanceContext): void {
  const { describe, it, expect } = ctx.t;
  const { session, backend, replica, newId } = ctx;
  describe('clear and metadata', () => {
    it('round-trips metadata and removes a key set to ""', async () => {
      const { b, id, s } = await session();
      await s.setMeta('title', 'Fix the failing test');
      await s.setMeta('owner', 'ops');
      await s.setMeta('owner', '');
      expect(await s.meta()).toEqual({ title: 'Fix the failing test' });
      expect(await (await (await replica(b)).open(id)).meta()).toEqual({
        title: 'Fix the failing test',
      });
    });

    it('clear removes messages, snapshot and metadata: the session is as if new', async () => {
      const { b, id, s } = await session();
      await s.save(conversation(4));
      const { tail } = await s.loadSnapshot();
      await s.saveSnapshot({ summary: 's' }, tail[1]!.cursor, null);
      await s.setMeta('title', 't');
      await s.clear();
      expect(await s.retrieve()).toEqual([]);
      expect(await s.loadSnapshot()).toEqual({ snapshot: null, tail: [] });
      expect(await s.meta()).toEqual({});
      expect(await b.inspect(id)).toBeNull();
      await s.save(conversation(1));
      expect(await b.inspect(id)).toMatchObject({ messages: 1, stored: 1, hasSnapshot: false });
      expect(texts(await s.retrieve())).toEqual(['u0']);
    });

    it('moves updatedAt on every kind of write', async () => {
      const { b, id, s } = await session();
      await s.save(conversation(2));
      const t1 = (await b.inspect(id))!.updatedAt;
      await tick();
      await s.setMeta('title', 't');
      const t2 = (await b.inspect(id))!.updatedAt;
      await tick();
      const { tail } = await s.loadSnapshot();
      await s.saveSnapshot({ summary: 's' }, tail[0]!.cursor, null);
      const t3 = (await b.inspect(id))!.updatedAt;
      expect(t1 < t2 && t2 < t3).toBe(true);
    });
  });

  describe('the backend port', () => {
    it('inspects a session: counts, snapshot, metadata; null when unknown', async () => {
      const { b, id, s } = await session();
      expect(await b.inspect(`${id}-none`)).toBeNull();
      await s.save(conversation(3));
      await s.setMeta('title', 'hello');
      const info = await b.inspect(id);
      expect(info).toEqual({
        id,
        messages: 3,
        stored: 3,
        updatedAt: expect.any(String),
        hasSnapshot: false,
        snapshotUpTo: null,
        meta: { title: 'hello' },
      });
      expect(new Date(info!.updatedAt).toISOString()).toBe(info!.updatedAt);
    });

    it('lists newest first through pages, searching id and title, including metadata-only sessions', async () => {
      const b = await backend();
      const prefix = newId();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const id = `${prefix}-${i}`;
        ids.push(id);
        const s = await b.open(id);
        if (i === 3) await s.setMeta('title', 'Deploy the Widget');
        else await s.save([userMessage(`m${i}`)]);
        await tick();
      }
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      do {
        const page = await b.list({ limit: 3, after, search: prefix });
        expect(page.items.length).toBeLessThanOrEqual(3);
        seen.push(...page.items.map((i) => i.id));
        after = page.next ?? undefined;
        pages++;
      } while (after && pages < 10);
      expect(seen).toEqual([...ids].reverse());
      expect(pages).toBe(3);

      const byTitle = await b.list({ search: 'widget' });
      expect(byTitle.items.map((i) => i.id)).toEqual([`${prefix}-3`]);
      expect(byTitle.next).toBeNull();
      expect(
        (await b.list({ search: `${prefix}-6`.toUpperCase() })).items.map((i) => i.id),
      ).toEqual([`${prefix}-6`]);
    });

    it('deletes a session', async () => {
      const { b, id, s } = await session();
      await s.save(conversation(2));
      await b.delete(id);
      expect(await b.inspect(id)).toBeNull();
      expect(await (await b.open(id)).retrieve()).toEqual([]);
    });

    it('accepts dotted ids of up to 128 characters', async () => {
      const b = await backend();
      for (const id of ['a', 'tenant-1.user_2.chat=3', 'x'.repeat(128)]) {
        const s = await b.open(id);
        await s.save([userMessage(id)]);
        expect((await b.inspect(id))?.messages).toBe(1);
        await b.delete(id);
      }
    });

    it('is reachable', async () => {
      const b = await backend();
      await expect(b.check()).resolves.toBeUndefined();
    });
  });
}
