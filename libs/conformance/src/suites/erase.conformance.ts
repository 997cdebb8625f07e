/**
 * Erasing one resource's data and listing by resource (docs/operations.md#erase-one-persons-data):
 * `erase({ resource })` removes exactly the sessions whose `resource` meta is that value, whole,
 * counts what it removed, is idempotent, and leaves no session half-erased when saves race it.
 */
import {
  InvalidQueryError,
  userMessage,
  type MemoryBackend,
  type SessionStore,
} from '@agent-memory/memory';
import { conversation, texts } from '../fixtures';
import type { ConformanceContext } from '../suite-context';

/** A session of `resource` (or of none) with `count` messages, the first one covered by a snapshot. */
async function seed(
  b: MemoryBackend,
  id: string,
  resource: string | null,
  count: number,
): Promise<SessionStore> {
  const s = await b.open(id);
  if (resource !== null) await s.setMeta('resource', resource);
  await s.setMeta('title', `chat ${id}`);
  await s.save(conversation(count), { idempotencyKey: `${id}-turn-1` });
  const { tail } = await s.loadSnapshot();
  await s.saveSnapshot({ summary: `summary of ${id}` }, tail[0]!.cursor, null);
  return s;
}

export function describeEraseConformance(ctx: ConformanceContext): void {
  const { describe, it, expect } = ctx.t;
  const { backend, replica, newId } = ctx;

  describe('erase one resource', () => {
    it('lists only the sessions of a resource, through pages', async () => {
      const b = await backend();
      const alice = newId();
      const ids = [`${alice}-1`, `${alice}-2`, `${alice}-3`];
      for (const id of ids) await seed(b, id, alice, 2);
      await seed(b, `${alice}-other`, `${alice}-x`, 2);
      await seed(b, `${alice}-none`, null, 2);
      const seen: string[] = [];
      let after: string | undefined;
      do {
        const page = await b.list({ resource: alice, limit: 2, after });
        seen.push(...page.items.map((info) => info.id));
        after = page.next ?? undefined;
      } while (after);
      expect(seen.sort()).toEqual(ids);
      expect(
        (await b.list({ resource: alice, search: `${alice}-2` })).items.map((i) => i.id),
      ).toEqual([`${alice}-2`]);
      expect((await b.list({ resource: `${alice}-nobody` })).items).toEqual([]);
    });

    it('removes exactly the sessions of the resource, whole, with counts; a second erase finds nothing', async () => {
      const b = await backend();
      const alice = newId();
      const bob = `${alice}-bob`;
      const a1 = await seed(b, `${alice}-a1`, alice, 3);
      await seed(b, `${alice}-a2`, alice, 2);
      const b1 = await seed(b, `${alice}-b1`, bob, 4);
      await seed(b, `${alice}-n1`, null, 1);
      const kept = async (id: string) => (await b.inspect(id))!.stored;
      const stored = (await kept(`${alice}-a1`)) + (await kept(`${alice}-a2`));
      const bobBefore = await b.inspect(`${alice}-b1`);

      const result = await b.erase({ resource: alice });

      expect(result).toEqual({
        sessions: 2,
        messages: stored,
        vectors: 0,
        sessionIds: expect.any(Array),
      });
      expect([...result.sessionIds].sort()).toEqual([`${alice}-a1`, `${alice}-a2`]);
      const other = await replica(b);
      for (const reader of [b, other]) {
        expect(await reader.inspect(`${alice}-a1`)).toBeNull();
        expect(await reader.inspect(`${alice}-a2`)).toBeNull();
        expect((await reader.list({ resource: alice })).items).toEqual([]);
        expect(await reader.inspect(`${alice}-b1`)).toEqual(bobBefore);
        expect(await reader.inspect(`${alice}-n1`)).toMatchObject({ messages: 1 });
      }
      expect(texts(await b1.retrieve())).toContain('a3');
      // Nothing of the erased session is left: no snapshot, no metadata, no idempotency key.
      expect(await a1.loadSnapshot()).toEqual({ snapshot: null, tail: [] });
      expect(await a1.meta()).toEqual({});
      const again = await a1.save(conversation(3), { idempotencyKey: `${alice}-a1-turn-1` });
      expect(again.replayed).toBe(false);

      expect(await b.erase({ resource: alice })).toEqual({
        sessions: 0,
        messages: 0,
        vectors: 0,
        sessionIds: [],
      });
    });

    it('refuses an empty or unstorable resource before touching anything', async () => {
      const b = await backend();
      const id = newId();
      await seed(b, `${id}-kept`, 'kept', 1);
      for (const resource of ['', 'a\u0000b', '\ud800', 42 as unknown as string]) {
        await expect(b.erase({ resource })).rejects.toThrow(InvalidQueryError);
        await expect(b.erase({ resource })).rejects.toThrow(/resource/);
      }
      await expect(b.list({ resource: '' })).rejects.toThrow(InvalidQueryError);
      expect(await b.inspect(`${id}-kept`)).toMatchObject({ meta: { resource: 'kept' } });
    });

    it('leaves no session half-erased when saves race the erase', async () => {
      const b = await backend();
      const writer = await replica(b);
      const carol = newId();
      const ids = Array.from({ length: 8 }, (_, i) => `${carol}-${i}`);
      let storedBefore = 0;
      for (const id of ids) {
        await seed(b, id, carol, 2);
        storedBefore += (await b.inspect(id))!.stored;
      }
      const savesPerSession = 6;
      let racingSaved = 0;
      const writers = ids.map(async (id) => {
        const s = await writer.open(id);
        for (let n = 0; n < savesPerSession; n++) {
          await s.save([userMessage(`late ${id} ${n}`)], { idempotencyKey: `${id}-late-${n}` });
          racingSaved++;
          await new Promise((resolve) => setImmediate(resolve));
        }
      });
      const erased = await b.erase({ resource: carol });
      await Promise.all(writers);

      let survivors = 0;
      for (const id of ids) {
        const info = await b.inspect(id);
        if (!info) continue;
        // A save that came after the erase started a new session: none of the old one is in it.
        expect(info.meta).toEqual({});
        expect(info.hasSnapshot).toBe(false);
        expect(info.messages).toBe(info.stored);
        const kept = texts(await (await b.open(id)).retrieve());
        expect(kept.every((text) => text.startsWith(`late ${id} `))).toBe(true);
        survivors += info.stored;
      }
      // Every message is accounted for once: erased with its session, or kept in a new one.
      expect(erased.sessions).toBe(ids.length);
      expect(erased.messages - storedBefore + survivors).toBe(racingSaved);
      expect((await b.list({ resource: carol })).items).toEqual([]);
      expect((await b.erase({ resource: carol })).sessions).toBe(0);
    });
  });
}
