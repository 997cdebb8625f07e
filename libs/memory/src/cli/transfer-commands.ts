import { readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MemoryBackend } from '../core/backend.interface';
import { CorruptSessionError } from '../core/errors';
import { isValidSessionId } from '../core/session-id';
import { exportSessions } from '../transfer/export-sessions';
import { importSessions, type ImportResult } from '../transfer/import-sessions';
import { ProgressLine } from './progress-line';
import {
  describeTransferBackend,
  openTransferBackend,
  type TransferBackendChoice,
} from './transfer-backend';

/** Options of {@link runExport}. */
export interface ExportCommandOptions {
  /** Only this resource's sessions. */
  resource?: string;
  /** Leave out sessions that cannot be read (each still named on stderr) instead of failing. */
  skipUnreadable?: boolean;
}

/** Why a transfer failed after it started: sessions it could not read, or none to move. */
export class TransferFailedError extends Error {}

/**
 * `agent-memory export`: every session (or one resource's) as JSON Lines on stdout, written as
 * fast as stdout takes them (a slow pipe holds the export back instead of filling memory), with a
 * counter on stderr when it is a terminal. It only reads: a JSON-file folder is opened read-only.
 * Every session that cannot be read is named on stderr.
 * @returns the number of sessions written.
 * @throws Error naming a JSON-file folder that does not exist.
 * @throws TransferFailedError when a session could not be read (unless `skipUnreadable`), or when
 * there was no session to export: an empty export is never mistaken for a finished move.
 */
export async function runExport(
  choice: TransferBackendChoice,
  opts: ExportCommandOptions = {},
): Promise<number> {
  if (choice.backend === 'jsonfile') await assertFolder(choice.dir);
  const backend = await openTransferBackend(choice, { readOnly: true });
  const progress = new ProgressLine(process.stderr);
  const unreadable: string[] = [];
  const report = (sessionId: string, reason: string) => {
    unreadable.push(sessionId);
    const verb = opts.skipUnreadable ? 'skipped' : 'cannot read';
    process.stderr.write(`agent-memory export: ${verb} session "${sessionId}": ${reason}\n`);
  };
  const exported = new Set<string>();
  try {
    async function* counted(): AsyncGenerator<string> {
      for await (const line of exportSessions(backend, {
        ...(opts.resource === undefined ? {} : { resource: opts.resource }),
        onUnreadable: (id, error) => report(id, error.message),
      })) {
        yield line;
        exported.add(sessionIdOfLine(line));
        progress.update(`exported ${exported.size} sessions`);
      }
    }
    await pipeline(Readable.from(counted()), process.stdout, { end: false });
    if (choice.backend === 'jsonfile') {
      for (const [id, reason] of await unlistedSessionFiles(choice.dir, exported, backend)) {
        report(id, reason);
      }
    }
    progress.done(`exported ${exported.size} sessions`);
  } finally {
    await backend.close();
  }
  if (unreadable.length > 0 && !opts.skipUnreadable) {
    throw new TransferFailedError(
      `${unreadable.length} session(s) of ${describeTransferBackend(choice)} could not be read ` +
        '(named above); the export is incomplete. Repair or delete them, or pass ' +
        '--skip-unreadable to export the rest',
    );
  }
  if (exported.size === 0) {
    const of = opts.resource === undefined ? '' : ` of resource "${opts.resource}"`;
    throw new TransferFailedError(
      `no sessions${of} in ${describeTransferBackend(choice)}: nothing was exported ` +
        '(check --backend, --dir, --url, --bucket or the MEMORY_* variables)',
    );
  }
  return exported.size;
}

/**
 * `agent-memory import`: JSON Lines from stdin into the store, one line at a time as it arrives,
 * with a counter on stderr when it is a terminal.
 * @returns the counts, which the command prints on stdout as JSON.
 * @throws TransferFailedError when the input held no session at all (an export that failed
 * upstream in a pipe): `{"imported":0}` is never mistaken for a finished move.
 */
export async function runImport(choice: TransferBackendChoice): Promise<ImportResult> {
  const backend = await openTransferBackend(choice);
  const progress = new ProgressLine(process.stderr);
  const describe = (p: ImportResult) => `imported ${p.imported}, skipped ${p.skipped}`;
  try {
    const result = await importSessions(backend, process.stdin, {
      onProgress: (p) => progress.update(`${describe(p)} (line ${p.lines})`),
    });
    progress.done(describe(result));
    if (result.imported + result.skipped === 0) {
      throw new TransferFailedError(
        'the input held no sessions: nothing was imported (did the export before it fail?)',
      );
    }
    return result;
  } finally {
    await backend.close();
  }
}

/** @throws Error naming `dir` when it does not exist or is not a folder. */
async function assertFolder(dir: string): Promise<void> {
  const found = await stat(dir).catch(() => null);
  const where = `"${resolve(dir)}" (from --dir, else MEMORY_DIR, else ./data/sessions)`;
  if (!found) throw new TransferFailedError(`the folder ${where} does not exist`);
  if (!found.isDirectory()) throw new TransferFailedError(`${where} is not a folder`);
}

function sessionIdOfLine(line: string): string {
  return (JSON.parse(line) as { id: string }).id;
}

/**
 * Session files of `dir` the export did not write, with why they cannot be read: the listing
 * leaves out files that do not decode (a truncated file, a head whose log is gone), so they are
 * looked for here. A file written since the listing (it reads fine) is not reported.
 */
async function unlistedSessionFiles(
  dir: string,
  exported: ReadonlySet<string>,
  backend: MemoryBackend,
): Promise<[string, string][]> {
  const names = await readdir(dir);
  const found: [string, string][] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    const id = name.slice(0, -'.json'.length);
    if (!isValidSessionId(id) || exported.has(id)) continue;
    try {
      const store = await backend.open(id);
      await store.loadSnapshot();
      await store.entries({ limit: 1 });
    } catch (error) {
      if (error instanceof CorruptSessionError) found.push([id, error.message]);
      else throw error;
    }
  }
  return found;
}
