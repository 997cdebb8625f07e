/**
 * Import's promises beyond the round trip: it resumes a session imported half-way, refuses one
 * held with other content, lets the target's metadata win, filters by resource on export, and
 * streams: neither side reads ahead of the other.
 */
import {
  ImportConflictError,
  assistantMessage,
  simpleBackend,
  userMessage,
  type MemoryBackend,
  type SessionStore,
} from '../index';
import { encodeSessionLine, type SessionLine } from './session-line';
import { exportSessions, importSessions } from './index';

const task = userMessage('the task');
const line = (session: Partial<SessionLine> & { id: string }): string =>
  encodeSessionLine({ meta: {}, snapshot: null, entries: [], ...session });
/** Five messages saved in two batches, the first three under a snapshot. */
const withSnapshot = (id: string): SessionLine => ({
  id,
  meta: { title: 'T' },
  snapshot: { summary: 'sum', pinned: [task], upTo: 3, createdAt: '2026-01-01T00:00:00.000Z' },
  entries: [
    task,
    assistantMessage('a1'),
    userMessage('u2'),
    assistantMessage('a3'),
    userMessage('u4'),
  ].map((message, i) => ({
    cursor: i + 1,
    message,
    savedAt: i < 3 ? '2026-01-01T00:00:00.000Z' : '2026-01-01T00:01:00.000Z',
  })),
});

async function texts(store: SessionStore): Promise<string[]> {
  return (await store.entries()).map((entry) => entry.message.parts[0]!.text!);
}

describe('importSessions', () => {
  let backend: MemoryBackend;
  beforeEach(() => {
    backend = simpleBackend({ capacity: 100 });
  });

  it('completes a session whose import stopped after its first batch, storing nothing twice', async () => {
    const session = withSnapshot('half');
    const store = await backend.open('half');
    await store.save(session.entries.slice(0, 3).map((entry) => entry.message));
    expect(await importSessions(backend, [encodeSessionLine(session)])).toEqual({
      imported: 1,
      skipped: 0,
    });
    expect(await texts(store)).toEqual(['the task', 'a1', 'u2', 'a3', 'u4']);
    expect((await store.loadSnapshot()).snapshot).toMatchObject({ summary: 'sum', upTo: 3 });
    expect(await store.meta()).toEqual({ title: 'T' });
  });

  it('saves the snapshot of a session whose messages were all imported before it', async () => {
    const session = withSnapshot('nosnap');
    const store = await backend.open('nosnap');
    await store.save(session.entries.map((entry) => entry.message));
    await importSessions(backend, [encodeSessionLine(session)]);
    expect((await store.loadSnapshot()).snapshot).toMatchObject({ summary: 'sum', upTo: 3 });
    expect(await texts(store)).toHaveLength(5);
  });

  it('skips a session that has had messages appended since it was imported', async () => {
    const lines = [encodeSessionLine(withSnapshot('grown'))];
    await importSessions(backend, lines);
    await (await backend.open('grown')).save([userMessage('later')]);
    expect(await importSessions(backend, lines)).toEqual({ imported: 0, skipped: 1 });
    expect(await texts(await backend.open('grown'))).toHaveLength(6);
  });

  it('refuses a session held with other messages, naming it and its line, after importing the lines before', async () => {
    await (await backend.open('taken')).save([userMessage('something else')]);
    const lines = [
      line({ id: 'first', entries: [{ cursor: 1, message: task }] }),
      encodeSessionLine(withSnapshot('taken')),
    ];
    const error = await importSessions(backend, lines).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportConflictError);
    expect(error).toMatchObject({ code: 'IMPORT_CONFLICT', session: 'taken', line: 2 });
    expect(await texts(await backend.open('taken'))).toEqual(['something else']);
    expect(await backend.inspect('first')).not.toBeNull();
  });

  it('adds the metadata keys the target lacks and keeps the values it has', async () => {
    await (await backend.open('m')).setMeta('title', 'renamed here');
    await importSessions(backend, [line({ id: 'm', meta: { title: 'old', owner: 'ann' } })]);
    expect(await (await backend.open('m')).meta()).toEqual({ title: 'renamed here', owner: 'ann' });
  });

  it('exports only the sessions of one resource when asked', async () => {
    await importSessions(backend, [
      line({ id: 'r1', meta: { resource: 'ann' } }),
      line({ id: 'r2', meta: { resource: 'bob' } }),
      line({ id: 'r3', meta: { resource: 'ann' } }),
    ]);
    const ids: string[] = [];
    for await (const text of exportSessions(backend, { resource: 'ann' })) {
      ids.push((JSON.parse(text) as SessionLine).id);
    }
    expect(ids.sort()).toEqual(['r1', 'r3']);
  });
});

describe('streaming 5,000 sessions', () => {
  const COUNT = 5000;

  it('imports as lines arrive and exports as lines are taken, never more than a line or a page ahead', async () => {
    const source = simpleBackend({ capacity: 10 });
    let produced = 0;
    let maxAhead = 0;
    function* lines(): Generator<string> {
      for (let i = 0; i < COUNT; i++) {
        produced += 1;
        yield line({
          id: `s${i}`,
          meta: { n: String(i) },
          entries: [{ cursor: 1, message: userMessage(`m${i}`) }],
        });
      }
    }
    const result = await importSessions(source, lines(), {
      onProgress: (progress) => (maxAhead = Math.max(maxAhead, produced - progress.lines)),
    });
    expect(result).toEqual({ imported: COUNT, skipped: 0 });
    expect(maxAhead).toBeLessThanOrEqual(1);

    let opened = 0;
    const counting: MemoryBackend = Object.assign(Object.create(source) as MemoryBackend, {
      open: (id: string) => {
        opened += 1;
        return source.open(id);
      },
    });
    let taken = 0;
    let maxRead = 0;
    for await (const text of exportSessions(counting)) {
      taken += 1;
      maxRead = Math.max(maxRead, opened - taken);
      expect(text.endsWith('\n')).toBe(true);
    }
    expect(taken).toBe(COUNT);
    expect(maxRead).toBeLessThanOrEqual(0);
  }, 60_000);
});
