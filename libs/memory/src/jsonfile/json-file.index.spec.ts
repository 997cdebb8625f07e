/**
 * The folder's session index across processes: sessions written by two other processes are all
 * listed by a third, newest first, the same as a fresh walk of the folder finds them; keyset
 * pages stay stable while another process writes; files dropped in or removed by something else
 * than the store show up (or go) too.
 */
import { jsonFileBackend, userMessage, type SessionInfo } from '@agent-memory/memory';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTogether, startScript } from '@agent-memory/test-support/child-script';
import { supportScriptPath } from '@agent-memory/test-support/paths';

const WRITER = supportScriptPath('jsonfile-sessions-writer.script.ts');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-memory-jsonfile-index-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

/** Every page of the list, `limit` at a time, following the tokens. */
async function allPages(
  list: (q: {
    limit: number;
    after?: string;
  }) => Promise<{ items: SessionInfo[]; next: string | null }>,
  limit: number,
): Promise<SessionInfo[]> {
  const items: SessionInfo[] = [];
  let after: string | undefined;
  do {
    const page = await list({ limit, ...(after ? { after } : {}) });
    items.push(...page.items);
    after = page.next ?? undefined;
  } while (after);
  return items;
}

/** Adjacent items not in newest-first order (updatedAt descending, then id ascending). */
function outOfOrder(items: readonly SessionInfo[]): number {
  let count = 0;
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!, items[i]!];
    if (a.updatedAt < b.updatedAt || (a.updatedAt === b.updatedAt && a.id > b.id)) count++;
  }
  return count;
}

describe('JSON-file session index across processes', () => {
  it('lists what two other processes wrote, newest first, as a fresh walk finds it', async () => {
    const lister = jsonFileBackend({ dir });
    // Listed once before: the writes below must reach this process through the index.
    expect((await lister.list({})).items).toEqual([]);
    const runs = await runTogether([
      startScript<{ written: string[] }>(WRITER, [dir, ...ids('a', 40)]),
      startScript<{ written: string[] }>(WRITER, [dir, ...ids('b', 40)]),
    ]);
    const written = runs.flatMap((run) => run.written);
    const listed = await allPages((q) => lister.list(q), 7);
    const walked = await allPages((q) => jsonFileBackend({ dir }).list(q), 7);
    const seen = listed.map((item) => item.id);
    const missing = written.filter((id) => !seen.includes(id));
    const duplicates = seen.length - new Set(seen).size;
    const unordered = outOfOrder(listed);
    console.log(
      `jsonfile index, 2 writer processes: written ${written.length}, listed ${seen.length}, ` +
        `missing ${missing.length}, duplicates ${duplicates}, out of order ${unordered}`,
    );
    expect({ missing, duplicates, unordered }).toEqual({
      missing: [],
      duplicates: 0,
      unordered: 0,
    });
    expect(seen.sort()).toEqual([...written].sort());
    expect(listed.map((i) => [i.id, i.updatedAt])).toEqual(walked.map((i) => [i.id, i.updatedAt]));
    expect(listed.every((item) => item.messages === 2)).toBe(true);
  }, 120_000);

  it('keeps keyset pages stable while another process writes', async () => {
    const [writer] = await runTogether([
      startScript<{ written: string[] }>(WRITER, [dir, ...ids('s', 30)]),
    ]);
    const lister = jsonFileBackend({ dir });
    const first = await lister.list({ limit: 10 });
    expect(first.items.map((i) => i.id)).toEqual([...writer!.written].reverse().slice(0, 10));
    // Another process writes a session of the first page and a new one: both move ahead of the
    // token, so the next pages show the other 20 sessions, each once.
    const moved = first.items[3]!.id;
    await runTogether([startScript<{ written: string[] }>(WRITER, [dir, moved, 'fresh'])]);
    const rest: SessionInfo[] = [];
    let after = first.next;
    while (after) {
      const page = await lister.list({ limit: 10, after });
      rest.push(...page.items);
      after = page.next;
    }
    const restIds = rest.map((i) => i.id);
    const expected = writer!.written.filter((id) => !first.items.some((i) => i.id === id));
    console.log(
      `jsonfile index, keyset while written: first page 10, later pages ${restIds.length} ` +
        `(expected ${expected.length}), duplicates ${restIds.length - new Set(restIds).size}`,
    );
    expect(restIds.sort()).toEqual([...expected].sort());
    // From the top again, the two written last come first.
    expect((await lister.list({ limit: 2 })).items.map((i) => i.id)).toEqual(['fresh', moved]);
  }, 120_000);

  it('sees session files added and removed by something else than the store', async () => {
    const lister = jsonFileBackend({ dir });
    await (await lister.open('ours')).save([userMessage('hello')]);
    expect((await lister.list({})).items.map((i) => i.id)).toEqual(['ours']);
    // A Phero process drops a session file in (a plain JSON array), newer than ours.
    const phero = join(dir, 'phero.json');
    writeFileSync(phero, JSON.stringify([userMessage('from phero')]));
    const later = new Date(Date.now() + 1000);
    utimesSync(phero, later, later);
    expect((await lister.list({})).items.map((i) => i.id)).toEqual(['phero', 'ours']);
    unlinkSync(join(dir, 'ours.json'));
    expect((await lister.list({})).items.map((i) => i.id)).toEqual(['phero']);
  }, 60_000);

  it('notes a save to the index at once after a list of the same process created it', async () => {
    const backend = jsonFileBackend({ dir });
    try {
      // The first save finds no index (nobody listed the folder yet): nothing to note to.
      await (await backend.open('early')).save([userMessage('first')]);
      await backend.list({});
      const created = readFileSync(join(dir, '_index'), 'utf8');
      await (await backend.open('late')).save([userMessage('second')]);
      // Within the second a missing index is not looked for again, yet this save is noted.
      const appended = readFileSync(join(dir, '_index'), 'utf8').slice(created.length);
      expect(appended).toMatch(/^late\t\d+\n$/);
    } finally {
      await backend.close();
    }
  });
});
