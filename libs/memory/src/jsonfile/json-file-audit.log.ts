import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  auditPageSize,
  DEFAULT_AUDIT_LOG_LIMITS,
  type AuditEntry,
  type AuditLog,
  type AuditLogLimits,
  type AuditLogPage,
  type NewAuditEntry,
} from '../core/audit-log.interface';
import { InvalidQueryError } from '../core/errors';
import { withFileLock } from './file-lock';

/** The audit folder inside a JSON-file store's folder (a dot folder: never listed as a session). */
export const JSON_FILE_AUDIT_FOLDER = '.audit';

/** The file appended to, and the one it becomes when full (the previous, older half). */
const CURRENT_FILE = 'audit.jsonl';
const PREVIOUS_FILE = 'audit.1.jsonl';

/** Options of {@link JsonFileAuditLog}. */
export interface JsonFileAuditLogOptions {
  /** The audit folder, such as `join(MEMORY_DIR, JSON_FILE_AUDIT_FOLDER)`; created when missing. */
  dir: string;
  /** What to keep; default {@link DEFAULT_AUDIT_LOG_LIMITS}. */
  limits?: Partial<AuditLogLimits>;
  /** The clock of the ids and of the age (epoch ms). Default `Date.now`. */
  now?: () => number;
}

/**
 * The audit log as an append-only JSON Lines file in a JSON-file store's folder, one entry a line,
 * for every process sharing the folder: appends take the file's cross-process lock. When
 * `audit.jsonl` holds half of `maxEntries` it is renamed `audit.1.jsonl` (replacing the older
 * half), so at most `maxEntries` entries are kept; entries older than `maxAgeMs` are not listed
 * and go with their file. Ids are time-ordered (`<epoch ms base 36, padded>-<random hex>`).
 */
export class JsonFileAuditLog implements AuditLog {
  private readonly limits: AuditLogLimits;
  private readonly now: () => number;
  private ready: Promise<unknown> | null = null;
  /** Lines and size of the current file as this process last saw it (another writer changes the size). */
  private known: { lines: number; bytes: number } | null = null;

  constructor(private readonly options: JsonFileAuditLogOptions) {
    this.limits = { ...DEFAULT_AUDIT_LOG_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
  }

  /** @throws the file system's error when the folder cannot be written; nothing is appended then. */
  async append(entry: NewAuditEntry): Promise<AuditEntry> {
    const stored: AuditEntry = {
      id: `${this.now().toString(36).padStart(9, '0')}-${randomBytes(6).toString('hex')}`,
      ...entry,
    };
    const line = `${JSON.stringify(stored)}\n`;
    await this.folder();
    const current = this.path(CURRENT_FILE);
    await withFileLock('audit', current, async () => {
      const lines = await this.currentLines(current);
      if (lines >= Math.max(1, Math.ceil(this.limits.maxEntries / 2))) {
        await rename(current, this.path(PREVIOUS_FILE));
        this.known = { lines: 0, bytes: 0 };
      }
      await appendFile(current, line, 'utf8');
      this.known = {
        lines: this.known!.lines + 1,
        bytes: this.known!.bytes + Buffer.byteLength(line),
      };
    });
    return stored;
  }

  async list(options: { limit?: number; after?: string | null } = {}): Promise<AuditLogPage> {
    const limit = auditPageSize(options.limit);
    const after = options.after ?? null;
    if (after !== null && !/^[0-9a-z]{9}-[0-9a-f]{12}$/.test(after)) {
      throw new InvalidQueryError('after', 'not a cursor of this audit log');
    }
    const entries = [...(await this.read(PREVIOUS_FILE)), ...(await this.read(CURRENT_FILE))]
      .reverse()
      .slice(0, this.limits.maxEntries);
    const oldest = this.now() - this.limits.maxAgeMs;
    const start = after === null ? 0 : entries.findIndex((entry) => entry.id === after) + 1;
    if (after !== null && start === 0) return { items: [], next: null };
    const items: AuditEntry[] = [];
    let more = false;
    for (let i = start; i < entries.length; i++) {
      if (Date.parse(entries[i]!.at) < oldest) break;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(entries[i]!);
    }
    return { items, next: more ? items[items.length - 1]!.id : null };
  }

  /** Lines in the current file: counted again only when its size is not what this process wrote. */
  private async currentLines(path: string): Promise<number> {
    const bytes = await stat(path).then(
      (info) => info.size,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return 0;
        throw error;
      },
    );
    if (this.known?.bytes !== bytes) {
      const text = bytes === 0 ? '' : await readFile(path, 'utf8');
      this.known = { lines: text.split('\n').length - 1, bytes };
    }
    return this.known.lines;
  }

  /** The entries of one file, oldest first; a line cut short by a crash is skipped. */
  private async read(name: string): Promise<AuditEntry[]> {
    let text: string;
    try {
      text = await readFile(this.path(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const entries: AuditEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        entries.push(JSON.parse(line) as AuditEntry);
      } catch {
        // A torn line: its request was answered; the entry is lost, the rest stays readable.
      }
    }
    return entries;
  }

  private path(name: string): string {
    return join(this.options.dir, name);
  }

  private folder(): Promise<unknown> {
    this.ready ??= mkdir(this.options.dir, { recursive: true });
    return this.ready;
  }
}
