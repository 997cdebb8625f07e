import type { MemoryBackend } from '../core/backend.interface';
import { ImportConflictError } from '../core/errors';
import type { CallOptions, Cursor, SessionStore } from '../core/memory.interface';
import { alignWithTarget, importBatches, planImport, type TargetSession } from './import-plan';
import { importedSaveOptions } from './imported-save-options';
import { splitLines, type LineSource } from './line-splitter';
import { decodeSessionLine, type SessionLine } from './session-line';
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
  /** Called after each session line with the counts so far (a CLI's progress counter). */
  onProgress?(progress: ImportProgress): void;
}

/**
 * Imports JSON Lines (one session a line, as {@link exportSessions} writes) into `backend`, one
 * line at a time as the input arrives, so any number of sessions moves in memory bounded by the
 * longest line. Each session's messages are saved in their order, in the batches they were saved
 * in at the source, then its snapshot (`saveSnapshot` with `prev` = the current one) and the
 * metadata keys the target lacks. Idempotent: a session whose messages the target already holds
 * is skipped, one imported half-way is completed, nothing is stored twice. Cursors are the target
 * store's own (their order is kept); a snapshot's `createdAt` and a session's `updatedAt` are the
 * time of the import.
 * @throws InvalidImportLineError naming the line and field of a line that is not a session.
 * @throws ImportConflictError when the target holds the session with other messages or another
 * snapshot. Sessions on earlier lines stay imported either way; running the import again resumes.
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
    const session = decodeSessionLine(line.text, line.number);
    const outcome = await importSession(backend, session, line.number, opts);
    result[outcome] += 1;
    opts.onProgress?.({ ...result, lines });
  }
  return result;
}

/**
 * Imports one decoded session (see {@link importSessions}).
 * @param lineNumber where the session came from, for a conflict's error.
 * @returns `imported` when anything was written, `skipped` when the target already held it all.
 */
export async function importSession(
  backend: MemoryBackend,
  session: SessionLine,
  lineNumber: number,
  opts: CallOptions = {},
): Promise<'imported' | 'skipped'> {
  const plan = planImport(session);
  const store = await backend.open(session.id);
  const exists = (await backend.inspect(session.id)) !== null;
  const target = exists ? await readTarget(store, opts) : { snapshot: null, entries: [] };
  const alignment = alignWithTarget(plan, target);
  if (alignment.kind === 'conflict') {
    throw new ImportConflictError(session.id, lineNumber, alignment.reason);
  }
  let written = false;
  let coveredUpTo: Cursor | undefined =
    plan.covered > 0 ? alignment.knownCursors[plan.covered - 1] : undefined;
  let next = alignment.saved;
  for (const batch of importBatches(plan, alignment.saved)) {
    const saved = await store.save(
      batch.map((planned) => planned.message),
      importedSaveOptions(batch[0]!.savedAt, opts.signal),
    );
    next += batch.length;
    if (next === plan.covered) coveredUpTo = saved.last ?? undefined;
    written = true;
  }
  if (!alignment.snapshotStored && plan.snapshot && coveredUpTo !== undefined) {
    await store.saveSnapshot(plan.snapshot, coveredUpTo, target.snapshot, opts);
    written = true;
  }
  const meta = exists ? await store.meta() : {};
  for (const [key, value] of Object.entries(session.meta)) {
    if (meta[key] !== undefined) continue;
    await store.setMeta(key, value);
    written = true;
  }
  return written ? 'imported' : 'skipped';
}

/** The target's snapshot and whole kept log. */
async function readTarget(store: SessionStore, opts: CallOptions): Promise<TargetSession> {
  const { snapshot } = await store.loadSnapshot(opts);
  return { snapshot, entries: await readWholeLog(store, opts) };
}
