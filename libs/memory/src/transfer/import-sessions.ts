import type { MemoryBackend } from '../core/backend.interface';
import { ImportConflictError, ImportIncompleteError, SnapshotConflictError } from '../core/errors';
import type {
  CallOptions,
  Cursor,
  SessionStore,
  Snapshot,
  StoredSnapshot,
} from '../core/memory.interface';
import type { JsonShapeLimits } from '../core/json-shape';
import {
  alignWithTarget,
  importBatches,
  planImport,
  sameSnapshot,
  type TargetSession,
} from './import-plan';
import { ImportKeyChain } from './import-keys';
import { importedSaveOptions } from './imported-save-options';
import { splitLines, type LineSource } from './line-splitter';
import { decodeSessionLineAsync, type SessionLine } from './session-line';
import { readWholeLog } from './whole-log';

/** Longest line {@link importSessions} reads by default: 16 MiB. */
export const DEFAULT_MAX_IMPORT_LINE_BYTES = 16 * 1024 * 1024;

/** What an import did: sessions written, and sessions the target already held (nothing written). */
export interface ImportResult {
  imported: number;
  skipped: number;
}

/** Progress of an import, reported after each session line. */
export interface ImportProgress extends ImportResult {
  /** Lines read so far, blank ones included. */
  lines: number;
}

/** Options of {@link importSessions}. */
export interface ImportSessionsOptions extends CallOptions {
  /** Longest line read, in bytes; default {@link DEFAULT_MAX_IMPORT_LINE_BYTES}. */
  maxLineBytes?: number;
  /**
   * Bounds each line is checked against before it is parsed: nesting depth and how many objects
   * and arrays it holds. Default `DEFAULT_IMPORT_LINE_SHAPE`; the admin API passes the
   * bounds of its JSON bodies.
   */
  lineShape?: JsonShapeLimits;
  /** Called after each session line with the counts so far (a CLI's progress counter). */
  onProgress?(progress: ImportProgress): void;
}

/**
 * Imports JSON Lines (one session a line, as {@link exportSessions} writes) into `backend`, one
 * line at a time as the input arrives, so any number of sessions moves in memory bounded by the
 * longest line. Each line is checked for depth, size and count before it is parsed (see
 * {@link ImportSessionsOptions.lineShape}); see {@link importSession} for how one session is
 * written. Cursors are the target store's own (their order is kept); a snapshot's `createdAt` and
 * a session's `updatedAt` are the time of the import.
 * @throws InvalidImportLineError naming the line and field of a line that is not a session.
 * @throws ImportConflictError when the target holds the session with other messages or another
 * snapshot.
 * @throws ImportIncompleteError when the store failed after part of a session was stored.
 * Sessions on earlier lines stay imported either way; running the import again resumes.
 */
export async function importSessions(
  backend: MemoryBackend,
  source: LineSource,
  opts: ImportSessionsOptions = {},
): Promise<ImportResult> {
  const result: ImportResult = { imported: 0, skipped: 0 };
  let lines = 0;
  for await (const line of splitLines(source, opts.maxLineBytes ?? DEFAULT_MAX_IMPORT_LINE_BYTES)) {
    opts.signal?.throwIfAborted();
    lines = line.number;
    const session = await decodeSessionLineAsync(line.text, line.number, opts.lineShape);
    const outcome = await importSession(backend, session, line.number, {
      ...opts,
      sessionsBefore: result.imported + result.skipped,
    });
    result[outcome] += 1;
    opts.onProgress?.({ ...result, lines });
  }
  return result;
}

/** Options of {@link importSession}. */
export interface ImportSessionOptions extends CallOptions {
  /** Sessions imported on earlier lines, for the report of an import that stops in this one. */
  sessionsBefore?: number;
}

const NOTHING_STORED: TargetSession = { snapshot: null, entries: [] };

/**
 * Imports one decoded session: its metadata keys the target lacks first (so a session cut short
 * still carries its `resource`, and is listed and erased with it), then its messages in their
 * order, in the batches they were saved in at the source (at most
 * `MAX_IMPORT_BATCH_MESSAGES` a save), then its snapshot (`saveSnapshot` with `prev` = the
 * current one). A session whose messages the target already holds is skipped, one imported
 * half-way is completed. Each save carries an idempotency key made from the line's content (see
 * {@link ImportKeyChain}), so two imports of one line at once store each batch once: the store
 * checks the key and appends in one atomic step. Keys are remembered for a session's last
 * `IDEMPOTENCY_KEY_WINDOW` (100) keyed saves, so this holds while neither import falls that many
 * batches behind the other.
 * @param lineNumber where the session came from, for the errors.
 * @returns `imported` when this call wrote anything, `skipped` when the target already held it all.
 * @throws ImportConflictError when the target holds the session with other content.
 * @throws ImportIncompleteError when the store failed with part of the session stored.
 */
export async function importSession(
  backend: MemoryBackend,
  session: SessionLine,
  lineNumber: number,
  opts: ImportSessionOptions = {},
): Promise<'imported' | 'skipped'> {
  const plan = planImport(session);
  const store = await backend.open(session.id);
  const exists = (await backend.inspect(session.id)) !== null;
  const target = exists ? await readTarget(store, opts) : NOTHING_STORED;
  const alignment = await alignWithTarget(plan, target);
  if (alignment.kind === 'conflict') {
    throw new ImportConflictError(session.id, lineNumber, alignment.reason);
  }
  let written = false;
  let stored = alignment.saved;
  let snapshotStored = alignment.snapshotStored;
  try {
    written = await importMeta(store, session.meta, exists);
    let coveredUpTo: Cursor | undefined =
      plan.covered > 0 && plan.covered <= alignment.saved
        ? alignment.knownCursors[plan.covered - 1]
        : undefined;
    const keys = new ImportKeyChain(session.id);
    for (const batch of importBatches(plan)) {
      const end = batch.start + batch.messages.length;
      const skipped = Math.max(0, stored - batch.start);
      const key = keys.next(batch, skipped);
      if (end <= stored) continue;
      const messages = batch.messages.slice(skipped);
      const saved = await store.save(
        messages.map((planned) => planned.message),
        importedSaveOptions(messages[0]!.savedAt, opts.signal, key),
      );
      stored = end;
      if (end === plan.covered) coveredUpTo = saved.last ?? undefined;
      if (!saved.replayed) written = true;
    }
    if (!snapshotStored && plan.snapshot && coveredUpTo !== undefined) {
      const outcome = await saveSnapshotOnce(
        store,
        plan.snapshot,
        coveredUpTo,
        target.snapshot,
        opts,
      );
      if (outcome === 'conflict') {
        throw new ImportConflictError(
          session.id,
          lineNumber,
          'another writer saved a different snapshot while it was imported',
        );
      }
      if (outcome === 'stored') written = true;
      snapshotStored = true;
    }
  } catch (error) {
    // Nothing of the session in the store: the store's own error says so. Otherwise the report
    // says what part is there; a conflict or an abort is reported as it is.
    if ((!exists && !written) || error instanceof ImportConflictError || opts.signal?.aborted) {
      throw error;
    }
    throw new ImportIncompleteError(
      session.id,
      lineNumber,
      { messages: stored, totalMessages: plan.messages.length, snapshot: snapshotStored },
      opts.sessionsBefore ?? 0,
      error,
    );
  }
  return written ? 'imported' : 'skipped';
}

/**
 * Sets the metadata keys the target lacks (compared with `Object.hasOwn`, so keys such as
 * `toString` are data like any other); a key the target holds keeps its value.
 * @returns whether anything was written.
 */
async function importMeta(
  store: SessionStore,
  meta: Readonly<Record<string, string>>,
  exists: boolean,
): Promise<boolean> {
  const held = exists ? await store.meta() : {};
  let written = false;
  for (const [key, value] of Object.entries(meta)) {
    if (Object.hasOwn(held, key)) continue;
    await store.setMeta(key, value);
    written = true;
  }
  return written;
}

/**
 * Saves the line's snapshot. When the compare-and-swap fails, another import of the same line
 * may have saved it first: the stored one is compared with it.
 * @returns `stored` when this call stored it, `held` when the store already held that very
 * snapshot, `conflict` when it holds another one.
 */
async function saveSnapshotOnce(
  store: SessionStore,
  snapshot: Snapshot,
  upTo: Cursor,
  prev: StoredSnapshot | null,
  opts: CallOptions,
): Promise<'stored' | 'held' | 'conflict'> {
  try {
    await store.saveSnapshot(snapshot, upTo, prev, opts);
    return 'stored';
  } catch (error) {
    if (!(error instanceof SnapshotConflictError)) throw error;
    const { snapshot: stored } = await store.loadSnapshot(opts);
    return stored && stored.upTo === upTo && sameSnapshot(snapshot, stored) ? 'held' : 'conflict';
  }
}

/** The target's snapshot and whole kept log. */
async function readTarget(store: SessionStore, opts: CallOptions): Promise<TargetSession> {
  const { snapshot } = await store.loadSnapshot(opts);
  return { snapshot, entries: await readWholeLog(store, opts) };
}
