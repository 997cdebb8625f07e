import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exportSessions } from '../transfer/export-sessions';
import { importSessions, type ImportResult } from '../transfer/import-sessions';
import { ProgressLine } from './progress-line';
import { openTransferBackend, type TransferBackendChoice } from './transfer-backend';

/**
 * `agent-memory export`: every session (or one resource's) as JSON Lines on stdout, written as
 * fast as stdout takes them (a slow pipe holds the export back instead of filling memory), with a
 * counter on stderr when it is a terminal.
 * @returns the number of sessions written.
 */
export async function runExport(
  choice: TransferBackendChoice,
  resource: string | undefined,
): Promise<number> {
  const backend = await openTransferBackend(choice);
  const progress = new ProgressLine(process.stderr);
  let sessions = 0;
  try {
    async function* counted(): AsyncGenerator<string> {
      for await (const line of exportSessions(
        backend,
        resource === undefined ? {} : { resource },
      )) {
        yield line;
        sessions += 1;
        progress.update(`exported ${sessions} sessions`);
      }
    }
    await pipeline(Readable.from(counted()), process.stdout, { end: false });
    progress.done(`exported ${sessions} sessions`);
    return sessions;
  } finally {
    await backend.close();
  }
}

/**
 * `agent-memory import`: JSON Lines from stdin into the store, one line at a time as it arrives,
 * with a counter on stderr when it is a terminal.
 * @returns the counts, which the command prints on stdout as JSON.
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
    return result;
  } finally {
    await backend.close();
  }
}
