/**
 * Moving sessions between stores: every pair of the four backends (in-process, JSON files,
 * PostgreSQL, NATS), exported as JSON Lines from one and imported into the other, keeps every
 * message (tool calls, images, reasoning, provider data), their order and save times, the
 * snapshot with its pinned messages, and the metadata; importing again stores nothing twice.
 */
import {
  exportSessions,
  importSessions,
  PRUNED_HISTORY_PLACEHOLDER,
  userMessage,
  type MemoryBackend,
  type Message,
  type SessionLine,
} from '@agent-memory/memory';
import { everyShapeMessages, conversation } from '@agent-memory/conformance';
import {
  jsonFileHarness,
  natsHarness,
  postgresHarness,
  simpleHarness,
  type BackendOptions,
  type ConformanceHarness,
  type CreatedBackend,
} from '@agent-memory/test-conformance';

const HARNESSES: Record<string, ConformanceHarness> = {
  simple: simpleHarness(),
  jsonfile: jsonFileHarness(),
  postgres: postgresHarness(),
  nats: natsHarness(),
};
const KINDS = Object.keys(HARNESSES);
const created: CreatedBackend[] = [];

async function backendOf(
  kind: string,
  opts: BackendOptions = { pruneCompacted: false },
): Promise<MemoryBackend> {
  const made = await HARNESSES[kind].create(opts);
  created.push(made);
  return made.backend;
}

afterAll(async () => {
  await Promise.all(created.map((made) => made.destroy()));
  await Promise.all(Object.values(HARNESSES).map((harness) => harness.destroy?.()));
});

/** Messages of every shape, with provider data on a message and on a part. */
function richMessages(): Message[] {
  const [system, user, assistant, ...rest] = everyShapeMessages();
  return [
    system!,
    { ...user!, providerData: { openai: { id: 'msg_1', nested: [1, { deep: true }] } } },
    {
      ...assistant!,
      parts: assistant!.parts.map((part, i) =>
        i === 0 ? { ...part, providerData: { encrypted_content: 'gAAAA' } } : part,
      ),
    },
    ...rest,
  ];
}

/** Three sessions: one with a snapshot, pinned task, meta and later turns; one plain; one meta only. */
async function seed(backend: MemoryBackend): Promise<void> {
  const alpha = await backend.open('alpha');
  const messages = richMessages();
  await alpha.save(messages.slice(0, 2));
  const first = await alpha.save(messages.slice(2, 5));
  await alpha.saveSnapshot(
    { summary: 'Looked at two pictures.', pinned: [userMessage('the task: describe')] },
    first.last!,
    null,
  );
  await alpha.save(messages.slice(5));
  await alpha.save(conversation(2, 10));
  await alpha.setMeta('title', 'Alpha');
  await alpha.setMeta('resource', 'user-1');
  const beta = await backend.open('beta');
  await beta.save(conversation(4));
  await beta.setMeta('resource', 'user-2');
  await (await backend.open('gamma')).setMeta('title', 'Only meta');
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

/**
 * A session's line without what belongs to the store rather than to the session: cursors become
 * positions, the snapshot's cursor the number of messages it covers, and its time goes. Each
 * entry's `savedAt` stays: it moves with the message.
 */
function portable(line: string): unknown {
  const session = JSON.parse(line) as SessionLine;
  const upTo = session.snapshot?.upTo;
  return {
    id: session.id,
    meta: session.meta,
    snapshot: session.snapshot && {
      summary: session.snapshot.summary,
      pinned: session.snapshot.pinned,
      covers: session.entries.filter((entry) => entry.cursor <= upTo!).length,
    },
    messages: session.entries.map((entry) => entry.message),
    savedAt: session.entries.map((entry) => entry.savedAt),
  };
}

async function portableExport(backend: MemoryBackend): Promise<unknown[]> {
  const lines = await collect(exportSessions(backend));
  return lines
    .map(portable)
    .sort((a, b) => ((a as { id: string }).id < (b as { id: string }).id ? -1 : 1));
}

describe('export and import between every pair of backends', () => {
  const exported = new Map<string, { lines: string[]; backend: MemoryBackend }>();

  beforeAll(async () => {
    for (const kind of KINDS) {
      const backend = await backendOf(kind);
      await seed(backend);
      exported.set(kind, { backend, lines: await collect(exportSessions(backend)) });
    }
  }, 60_000);

  it('exports one line per session, each ending with a newline', () => {
    for (const { lines } of exported.values()) {
      expect(lines).toHaveLength(3);
      for (const line of lines)
        expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
      const alpha = lines
        .map(portable)
        .find((session) => (session as { id: string }).id === 'alpha');
      expect(alpha).toEqual({
        id: 'alpha',
        meta: { title: 'Alpha', resource: 'user-1' },
        snapshot: {
          summary: 'Looked at two pictures.',
          pinned: [userMessage('the task: describe')],
          covers: 5,
        },
        messages: JSON.parse(JSON.stringify([...richMessages(), ...conversation(2, 10)])),
        savedAt: expect.any(Array),
      });
      const times = (alpha as { savedAt: (string | undefined)[] }).savedAt;
      // Every store dates each batch; the four batches keep four times, shared within a batch.
      expect(times.every((time) => typeof time === 'string')).toBe(true);
      expect(times[0]).toBe(times[1]);
      expect(times[2]).toBe(times[4]);
    }
  });

  for (const from of KINDS) {
    for (const to of KINDS) {
      it(`${from} → ${to}: loses nothing, and a second import stores nothing`, async () => {
        const source = exported.get(from)!;
        const target = await backendOf(to);
        expect(await importSessions(target, source.lines)).toEqual({ imported: 3, skipped: 0 });
        const expected = await portableExport(source.backend);
        expect(await portableExport(target)).toEqual(expected);
        for (const id of ['alpha', 'beta']) {
          const [was, now] = await Promise.all([
            (await source.backend.open(id)).retrieve(),
            (await target.open(id)).retrieve(),
          ]);
          expect(JSON.parse(JSON.stringify(now))).toEqual(JSON.parse(JSON.stringify(was)));
        }
        expect(await importSessions(target, source.lines)).toEqual({ imported: 0, skipped: 3 });
        expect(await portableExport(target)).toEqual(expected);
        expect((await target.inspect('alpha'))!.stored).toBe(
          (await source.backend.inspect('alpha'))!.stored,
        );
      });
    }
  }
});

describe('a snapshot whose covered messages the source pruned', () => {
  it.each(KINDS)(
    'imports into %s with a covered placeholder, and retrieve() is the same',
    async (to) => {
      const source = await backendOf('nats', { pruneCompacted: true });
      const session = await source.open('pruned');
      const saved = await session.save(conversation(4));
      await session.saveSnapshot({ summary: 'four messages' }, saved.last!, null);
      await session.save(conversation(2, 4));
      const lines = await collect(exportSessions(source));
      expect(portable(lines[0]!)).toMatchObject({ snapshot: { covers: 0 } });

      const target = await backendOf(to);
      expect(await importSessions(target, lines)).toEqual({ imported: 1, skipped: 0 });
      const imported = await target.open('pruned');
      expect(await imported.retrieve()).toEqual(await session.retrieve());
      const [first] = await imported.entries();
      expect(first!.message.parts[0]!.text).toBe(PRUNED_HISTORY_PLACEHOLDER);
      expect(await importSessions(target, lines)).toEqual({ imported: 0, skipped: 1 });
    },
  );
});

describe('into a store that prunes what snapshots cover (the NATS default)', () => {
  it('keeps the context, and a second import stores nothing', async () => {
    const source = await backendOf('postgres');
    await seed(source);
    const lines = await collect(exportSessions(source));
    const target = await backendOf('nats', { pruneCompacted: true });
    expect(await importSessions(target, lines)).toEqual({ imported: 3, skipped: 0 });
    const alpha = await target.open('alpha');
    expect(await alpha.retrieve()).toEqual(await (await source.open('alpha')).retrieve());
    expect((await alpha.entries()).length).toBe(3);
    expect(await importSessions(target, lines)).toEqual({ imported: 0, skipped: 3 });
    expect((await alpha.entries()).length).toBe(3);
  });
});
