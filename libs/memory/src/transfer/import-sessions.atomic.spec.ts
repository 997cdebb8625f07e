/**
 * An import stores each session once and whole, or says exactly what it stored, on JSON files,
 * PostgreSQL and NATS: two imports of one file at once (both read the target before either
 * writes, forced by a gate) store every message once and a third skips them all; a store that
 * fails inside a session (a full disk, a value over NATS's limit, a PostgreSQL error) leaves the
 * part with its metadata, reports it as `IMPORT_INCOMPLETE`, and a rerun once the cause is gone
 * completes it; metadata keys named like `Object.prototype`'s members are kept.
 */
import { rmSync } from 'node:fs';
import {
  DEFAULT_IMPORT_LINE_SHAPE,
  ImportIncompleteError,
  encodeSessionLine,
  exportSessions,
  importSessions,
  jsonFileBackend,
  userMessage,
  type Entry,
  type MemoryBackend,
  type SessionLine,
} from '@agent-memory/memory';
import { natsBackend } from '@agent-memory/memory/nats';
import { postgresBackend } from '@agent-memory/memory/postgres';
import {
  jsonFileHarness,
  natsHarness,
  postgresHarness,
  type ConformanceHarness,
  type CreatedBackend,
} from '@agent-memory/test-conformance';
import { connect } from 'nats';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { mountSmallFilesystem, takeSpace } from '@agent-memory/test-support/small-filesystem';

const HARNESSES = {
  jsonfile: jsonFileHarness(),
  postgres: postgresHarness(),
  nats: natsHarness(),
} satisfies Record<string, ConformanceHarness>;
type Kind = keyof typeof HARNESSES;
const KINDS = Object.keys(HARNESSES) as Kind[];
const created: CreatedBackend[] = [];

async function backendOf(kind: Kind): Promise<MemoryBackend> {
  const made = await HARNESSES[kind].create({ pruneCompacted: false });
  created.push(made);
  return made.backend;
}

afterAll(async () => {
  await Promise.all(created.map((made) => made.destroy()));
  await Promise.all(Object.values(HARNESSES).map((harness) => harness.destroy?.()));
});

/**
 * One session's line: `batches` source batches of `perBatch` messages (each batch its own
 * `savedAt`), a snapshot covering the first batch when asked, and `meta`.
 */
function sessionLine(
  id: string,
  opts: {
    batches: number;
    perBatch: number;
    text?: string;
    meta?: Record<string, string>;
    snapshot?: boolean;
  },
): string {
  const entries: Entry[] = [];
  for (let b = 0; b < opts.batches; b++) {
    const savedAt = new Date(Date.UTC(2026, 0, 1, 0, b)).toISOString();
    for (let i = 0; i < opts.perBatch; i++) {
      const text = `${id} batch ${b} message ${i}${opts.text ?? ''}`;
      entries.push({ cursor: entries.length + 1, message: userMessage(text), savedAt });
    }
  }
  const line: SessionLine = {
    id,
    meta: opts.meta ?? {},
    snapshot: opts.snapshot
      ? { summary: `${id} summary`, upTo: opts.perBatch, createdAt: '2026-01-01T01:00:00.000Z' }
      : null,
    entries,
  };
  return encodeSessionLine(line);
}

/** The texts of a session's kept log, in order. */
async function textsOf(backend: MemoryBackend, id: string): Promise<string[]> {
  const entries = await (await backend.open(id)).entries();
  return entries.map((entry) => entry.message.parts[0]!.text!);
}

async function exported(backend: MemoryBackend): Promise<unknown[]> {
  const lines: unknown[] = [];
  for await (const line of exportSessions(backend)) {
    const { id, meta, snapshot, entries } = JSON.parse(line) as SessionLine;
    lines.push({
      id,
      meta,
      summary: snapshot?.summary ?? null,
      texts: entries.map((entry) => entry.message.parts[0]!.text),
      savedAt: entries.map((entry) => entry.savedAt),
    });
  }
  return lines.sort((a, b) => ((a as { id: string }).id < (b as { id: string }).id ? -1 : 1));
}

/**
 * `backend`, except that `inspect` of a session answers only once `parties` callers have asked
 * for it: every import reads the target as absent before any of them writes (the race of two
 * imports of one file, or a client retrying after a timeout, forced on every session).
 */
function readTogether(backend: MemoryBackend, parties: number): MemoryBackend {
  const gates = new Map<string, { arrived: number; open: () => void; opened: Promise<void> }>();
  const gateOf = (id: string) => {
    let gate = gates.get(id);
    if (!gate) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gate = { arrived: 0, open, opened };
      gates.set(id, gate);
    }
    return gate;
  };
  return new Proxy(backend, {
    get(target, property, receiver) {
      if (property === 'inspect') {
        return async (id: string) => {
          const info = await target.inspect(id);
          const gate = gateOf(id);
          if (++gate.arrived === parties) gate.open();
          await gate.opened;
          return info;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each(KINDS)('importing into %s', (kind) => {
  it('stores every session once when two imports of one file run at once, and a rerun skips them', async () => {
    const lines = Array.from({ length: 6 }, (_, i) =>
      sessionLine(`race-${i}`, {
        batches: 4,
        perBatch: 3,
        meta: { resource: 'racer', title: `Race ${i}` },
        snapshot: i % 2 === 0,
      }),
    );
    const target = await backendOf(kind);
    const gated = readTogether(target, 2);
    const [a, b] = await Promise.all([importSessions(gated, lines), importSessions(gated, lines)]);
    expect(a.imported + a.skipped).toBe(6);
    expect(b.imported + b.skipped).toBe(6);
    for (let i = 0; i < 6; i++) {
      const texts = await textsOf(target, `race-${i}`);
      expect(texts).toHaveLength(12);
      expect(new Set(texts).size).toBe(12);
    }
    expect(await exported(target)).toEqual(
      lines
        .map((line) => {
          const { id, meta, snapshot, entries } = JSON.parse(line) as SessionLine;
          return {
            id,
            meta,
            summary: snapshot?.summary ?? null,
            texts: entries.map((entry) => entry.message.parts[0]!.text),
            savedAt: entries.map((entry) => entry.savedAt),
          };
        })
        .sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    expect(await importSessions(target, lines)).toEqual({ imported: 0, skipped: 6 });
  });

  it("keeps metadata keys named like Object.prototype's members, a session holding only those too", async () => {
    const meta = {
      toString: 'a',
      valueOf: 'b',
      hasOwnProperty: 'c',
      isPrototypeOf: 'd',
      toLocaleString: 'e',
    };
    const source = await backendOf(kind);
    const only = await source.open('proto-only');
    const withMessages = await source.open('proto-messages');
    for (const [key, value] of Object.entries(meta)) {
      await only.setMeta(key, value);
      await withMessages.setMeta(key, value);
    }
    await withMessages.save([userMessage('hello')]);
    const lines: string[] = [];
    for await (const line of exportSessions(source)) lines.push(line);
    expect(lines).toHaveLength(2);

    const target = await backendOf(kind);
    expect(await importSessions(target, lines)).toEqual({ imported: 2, skipped: 0 });
    expect(await (await target.open('proto-only')).meta()).toEqual(meta);
    expect(await (await target.open('proto-messages')).meta()).toEqual(meta);
    expect(await exported(target)).toEqual(await exported(source));
    expect(await importSessions(target, lines)).toEqual({ imported: 0, skipped: 2 });
  });

  it('refuses a line nested past the depth bound before parsing it, keeping the lines before', async () => {
    const target = await backendOf(kind);
    const deep = `{"id":"deep","entries":[],"extra":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const good = sessionLine('before-deep', { batches: 1, perBatch: 1 });
    await expect(importSessions(target, [good, deep, '\n'])).rejects.toMatchObject({
      code: 'INVALID_IMPORT_LINE',
      line: 2,
      message: expect.stringContaining(
        `nests objects and arrays deeper than ${DEFAULT_IMPORT_LINE_SHAPE.maxDepth} levels`,
      ),
    });
    expect(await target.inspect('before-deep')).not.toBeNull();
    expect(await target.inspect('deep')).toBeNull();
  });
});

/** Asserts the import failed inside `id` with `stored` of `total` messages kept, naming the cause's code. */
function expectIncomplete(error: unknown, id: string, stored: string, causeCode: string): void {
  expect(error).toBeInstanceOf(ImportIncompleteError);
  const incomplete = error as ImportIncompleteError;
  expect(incomplete).toMatchObject({ code: 'IMPORT_INCOMPLETE', session: id, line: 2 });
  expect(incomplete.message).toContain(`its metadata and ${stored} messages`);
  expect(incomplete.message).toContain('the lines before it are imported (1 session)');
  expect((incomplete.cause as { code: string }).code).toBe(causeCode);
}

describe('a store that fails inside a session', () => {
  it('JSON files, full disk: the part keeps its resource, erase finds it, and a rerun after freeing space completes it', async () => {
    const fs = mountSmallFilesystem(8 * 1024 * 1024);
    if (!fs) {
      console.warn('skipped: this system refuses a tmpfs mount');
      return;
    }
    try {
      const dir = `${fs.dir}/sessions`;
      const backend = jsonFileBackend({ dir, minFreeBytes: 0 });
      const filler = 'x'.repeat(20_000);
      const lines = [
        sessionLine('small', { batches: 1, perBatch: 1, meta: { resource: 'tenant' } }),
        sessionLine('big', {
          batches: 30,
          perBatch: 3,
          text: filler,
          meta: { resource: 'tenant' },
        }),
      ];
      // Room for the small session and about half of the big one's 1.8 MB.
      const space = takeSpace(fs.dir, 7 * 1024 * 1024);
      const error = await importSessions(backend, lines).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ImportIncompleteError);
      const part = (error as ImportIncompleteError).part;
      expect(part.messages).toBeGreaterThan(0);
      expect(part.messages).toBeLessThan(90);
      expect(part.messages % 3).toBe(0);
      expectIncomplete(error, 'big', `${part.messages} of 90`, 'STORAGE_FULL');
      expect((await backend.inspect('big'))?.meta).toEqual({ resource: 'tenant' });
      expect(await textsOf(backend, 'big')).toHaveLength(part.messages);

      // The same import once there is room: completed, nothing twice.
      rmSync(space);
      expect(await importSessions(backend, lines)).toEqual({ imported: 1, skipped: 1 });
      const texts = await textsOf(backend, 'big');
      expect(texts).toHaveLength(90);
      expect(new Set(texts).size).toBe(90);

      // A part is erased with its resource like any session.
      const erased = await backend.erase({ resource: 'tenant' });
      expect(erased).toMatchObject({ sessions: 2, messages: 91 });
      await backend.close();
    } finally {
      fs.release();
    }
  });

  it('NATS, a value over the bucket limit: the part is reported as such, keeps its resource, and is erased with it', async () => {
    const buckets = new TestBuckets('import');
    const nc = await connect({ servers: testNatsUrl() });
    try {
      const bucket = buckets.next();
      await nc.jetstream().views.kv(bucket, { history: 1, maxValueSize: 16 * 1024 });
      const backend = await natsBackend({ connection: nc, bucket });
      const lines = [
        sessionLine('small', { batches: 1, perBatch: 1, meta: { resource: 'tenant' } }),
        sessionLine('big', {
          batches: 10,
          perBatch: 2,
          text: 'y'.repeat(2_000),
          meta: { resource: 'tenant' },
        }),
      ];
      const error = await importSessions(backend, lines).catch((e: unknown) => e);
      const part = (error as ImportIncompleteError).part;
      expectIncomplete(error, 'big', `${part.messages} of 20`, 'SESSION_TOO_LARGE');
      expect(part.messages).toBeGreaterThan(0);
      expect(await textsOf(backend, 'big')).toHaveLength(part.messages);
      // A rerun cannot fit it either, and says so the same way, storing nothing twice.
      const again = await importSessions(backend, lines).catch((e: unknown) => e);
      expectIncomplete(again, 'big', `${part.messages} of 20`, 'SESSION_TOO_LARGE');
      expect(await textsOf(backend, 'big')).toHaveLength(part.messages);
      expect(await backend.erase({ resource: 'tenant' })).toMatchObject({ sessions: 2 });
      expect(await backend.inspect('big')).toBeNull();
      await backend.close();
    } finally {
      await nc.close();
      await buckets.cleanup();
    }
  });

  it('PostgreSQL, a statement the server refuses: a rerun once it takes them completes the session', async () => {
    const schemas = new TestSchemas('import');
    const table = schemas.nextTable();
    const backend = await postgresBackend({ url: schemas.url, table });
    try {
      const lines = [
        sessionLine('small', { batches: 1, perBatch: 1, meta: { resource: 'tenant' } }),
        sessionLine('big', { batches: 4, perBatch: 2, meta: { resource: 'tenant' } }),
      ];
      // A real server-side failure on the third batch: a trigger refusing its messages.
      await schemas.query(`
        CREATE FUNCTION ${table}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.message::text LIKE '%big batch 2 %' THEN RAISE EXCEPTION 'refused'; END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER refuse BEFORE INSERT ON ${table}
          FOR EACH ROW EXECUTE FUNCTION ${table}_refuse();`);
      const error = await importSessions(backend, lines).catch((e: unknown) => e);
      expectIncomplete(error, 'big', '4 of 8', 'BACKEND_ERROR');
      expect((await backend.inspect('big'))?.meta).toEqual({ resource: 'tenant' });

      await schemas.query(`DROP TRIGGER refuse ON ${table}`);
      expect(await importSessions(backend, lines)).toEqual({ imported: 1, skipped: 1 });
      const texts = await textsOf(backend, 'big');
      expect(texts).toEqual(
        (JSON.parse(lines[1]!) as SessionLine).entries.map((e) => e.message.parts[0]!.text),
      );
    } finally {
      await backend.close();
      await schemas.cleanup();
    }
  });
});
