/**
 * Fills a JSON-file store until its disk refuses writes, on several sessions at once (half kept
 * as Phero's plain array, half in log form, each written by two savers so appends are grouped),
 * then checks what a user relies on: every acknowledged save reads back at its cursors and
 * nothing else is stored, every file decodes, every refusal is `STORAGE_FULL`, and saves are
 * stored again once space is freed. Returns what it found as plain data, so that it runs in the
 * test process (on a tmpfs) or in a child under a file size limit alike.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileBackend, MemoryError, userMessage, type Message } from '@agent-memory/memory';
import { seededRandom } from './seeded-random';

export interface FullDiskReport {
  sessions: string[];
  /** Saves answered with cursors. */
  acknowledged: number;
  /** Refused saves per error code (`other` for an error without one). */
  refusals: Record<string, number>;
  /** What differs between the acknowledged saves and what a fresh store reads back. */
  lost: string[];
  /** Files of the folder that do not decode, and sessions `inspect` calls corrupt. */
  undecodable: string[];
  /** Sessions whose save after the space was freed was stored and read back. */
  resumed: string[];
}

export interface FillOptions {
  /** Session files of each form. Default 3. */
  perForm?: number;
  /** Largest batch text in bytes. Default 60 000. */
  maxBatchBytes?: number;
  /** Refusals each saver waits for before it stops. Default 3. */
  refusalsPerSaver?: number;
}

interface Acknowledged {
  first: number;
  texts: string[];
}

/**
 * Runs the scenario in `dir` (which must be on the small filesystem); `freeSpace` gives the disk
 * room again.
 */
export async function fillUntilFull(
  dir: string,
  freeSpace: () => Promise<void> | void,
  opts: FillOptions = {},
): Promise<FullDiskReport> {
  const perForm = opts.perForm ?? 3;
  const maxBatchBytes = opts.maxBatchBytes ?? 60_000;
  const refusalsPerSaver = opts.refusalsPerSaver ?? 3;
  const folder = join(dir, 'sessions');
  // Plain sessions stay the plain array however large they grow.
  const backend = jsonFileBackend({ dir: folder, plainMaxBytes: 64 << 20 });
  const plain = Array.from({ length: perForm }, (_, i) => `plain-${i}`);
  const logged = Array.from({ length: perForm }, (_, i) => `log-${i}`);
  const sessions = [...plain, ...logged];
  for (const id of logged) await (await backend.open(id)).setMeta('form', 'log');
  // A folder that was listed keeps an index, which every write then appends to.
  await backend.list({});

  const acknowledged = new Map<string, Acknowledged[]>(sessions.map((id) => [id, []]));
  const refusals: Record<string, number> = {};
  const saver = async (id: string, saverNo: number) => {
    const random = seededRandom(id.length * 31 + saverNo);
    let refused = 0;
    for (let i = 0; refused < refusalsPerSaver && i < 2000; i++) {
      const count = 1 + Math.floor(random() * 2);
      const texts = Array.from(
        { length: count },
        (_, m) =>
          `${id}/${saverNo}/${i}/${m} ` + 'x'.repeat(Math.floor(random() * maxBatchBytes) + 500),
      );
      try {
        const result = await (await backend.open(id)).save(texts.map((t) => userMessage(t)));
        acknowledged.get(id)!.push({ first: result.first!, texts });
      } catch (error) {
        const code = error instanceof MemoryError ? error.code : 'other';
        refusals[code] = (refusals[code] ?? 0) + 1;
        refused++;
      }
    }
  };
  await Promise.all(sessions.flatMap((id) => [saver(id, 0), saver(id, 1)]));

  const report: FullDiskReport = {
    sessions,
    acknowledged: [...acknowledged.values()].reduce((n, acks) => n + acks.length, 0),
    refusals,
    lost: [],
    undecodable: undecodableFiles(folder),
    resumed: [],
  };
  await compareStored(folder, acknowledged, report);

  await freeSpace();
  for (const id of sessions) {
    const texts = [`${id} after space was freed`];
    try {
      const result = await (await backend.open(id)).save(texts.map((t) => userMessage(t)));
      acknowledged.get(id)!.push({ first: result.first!, texts });
    } catch (error) {
      report.lost.push(`${id}: the save after space was freed failed: ${String(error)}`);
    }
  }
  const lostBefore = report.lost.length;
  await compareStored(folder, acknowledged, report);
  if (report.lost.length === lostBefore) {
    report.resumed = sessions.filter((id) => !report.lost.some((l) => l.startsWith(`${id}:`)));
  }
  report.undecodable.push(...undecodableFiles(folder));
  return report;
}

/** Reads every session with a fresh store (no cache) and notes where it differs from `acknowledged`. */
async function compareStored(
  folder: string,
  acknowledged: Map<string, Acknowledged[]>,
  report: FullDiskReport,
): Promise<void> {
  const fresh = jsonFileBackend({ dir: folder, plainMaxBytes: 64 << 20 });
  for (const [id, acks] of acknowledged) {
    try {
      await fresh.inspect(id);
    } catch (error) {
      report.undecodable.push(`${id}: ${String(error)}`);
      continue;
    }
    const expected: Array<{ cursor: number; text: string }> = [];
    for (const ack of [...acks].sort((a, b) => a.first - b.first)) {
      ack.texts.forEach((text, i) => expected.push({ cursor: ack.first + i, text }));
    }
    const stored = (await (await fresh.open(id)).entries()).map((entry) => ({
      cursor: entry.cursor,
      text: textOf(entry.message),
    }));
    const describe = (e: { cursor: number; text: string }) => `${e.cursor}:${e.text.slice(0, 40)}`;
    const want = expected.map(describe);
    const got = stored.map(describe);
    if (want.join('\n') !== got.join('\n')) {
      report.lost.push(
        `${id}: acknowledged ${want.length} messages, read back ${got.length}; first difference ` +
          `at ${want.findIndex((w, i) => w !== got[i])}`,
      );
    }
  }
}

/** Session files that are not JSON and logs with a line that is not, or a last line without its newline. */
function undecodableFiles(folder: string): string[] {
  const bad: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (name.endsWith('.json')) {
      try {
        JSON.parse(readFileSync(path, 'utf8'));
      } catch (error) {
        bad.push(`${name}: ${String(error)}`);
      }
    } else if (name.endsWith('.jsonl')) {
      const text = readFileSync(path, 'utf8');
      if (text !== '' && !text.endsWith('\n')) bad.push(`${name}: a torn last line`);
      text
        .split('\n')
        .slice(0, -1)
        .forEach((line, i) => {
          try {
            JSON.parse(line);
          } catch {
            bad.push(`${name}: line ${i + 1} is not JSON`);
          }
        });
    }
  }
  return bad;
}

function textOf(message: Message): string {
  const part = message.parts[0];
  return part?.type === 'text' ? (part.text ?? '') : '';
}
