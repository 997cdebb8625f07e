import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MemoryBackend } from '../core/backend.interface';
import { CorruptSessionError } from '../core/errors';
import { driverOfBackend } from '../core/driver-lookup';
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
    for (const [id, reason] of await unlistedSessions(choice, exported, backend)) {
      report(id, reason);
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

function sessionIdOfLine(line: string): string {
  return (JSON.parse(line) as { id: string }).id;
}

/**
 * Sessions of the store the export did not write, with why they cannot be read: a store whose
 * listing leaves out sessions that do not decode (a truncated JSON file, a head whose log is
 * gone) names every id it holds (`storedSessionIds`), and those are looked for here. A session
 * written since the listing (it reads fine) is not reported.
 */
async function unlistedSessions(
  choice: TransferBackendChoice,
  exported: ReadonlySet<string>,
  backend: MemoryBackend,
): Promise<[string, string][]> {
  const driven = driverOfBackend([choice.driver], backend);
  const ids = driven ? await driven.driver.storedSessionIds?.(driven.store) : undefined;
  const found: [string, string][] = [];
  for (const id of ids ?? []) {
    if (exported.has(id)) continue;
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
