/**
 * The audit log's contract, run against the log each backend keeps next to its sessions: entries
 * come back exactly as appended, newest first, paged without gaps or repeats; the limits hold;
 * a replica on the same storage sees the same log; concurrent appends all land.
 */
import {
  InvalidQueryError,
  type AuditEntry,
  type AuditLog,
  type AuditLogLimits,
  type NewAuditEntry,
} from '@agent-memory/memory';
import type { ConformanceRunOptions } from './runner';
import { registration } from './suite-context';
import { resolveRunner } from './test-api';

/** An audit log under test: how to make one over fresh storage, open it again, and destroy it. */
export interface AuditLogInitializer {
  /** The log's name, in every test title. */
  name: string;
  /** A log with `limits` over fresh, isolated storage. */
  createAuditLog(limits: Partial<AuditLogLimits>): AuditLog | Promise<AuditLog>;
  /**
   * The log of `log`'s storage, opened again as another replica would (its own connection).
   * Without it, the shared-log test is skipped (an in-process log has no other opener).
   */
  openReplica?(log: AuditLog, limits: Partial<AuditLogLimits>): AuditLog | Promise<AuditLog>;
  /** Closes what a log (or replica) opened and removes its storage. Default: nothing. */
  destroyAuditLog?(log: AuditLog): void | Promise<void>;
  /** Removes what was set up for all logs, after the last test. */
  afterAll?(): void | Promise<void>;
}

/** When this suite's entries happen: a minute before the suite was loaded, `n` ms apart. */
const ENTRIES_FROM_MS = Date.now() - 60_000;

/** The suite's entry number `n`: a change to `session-<n>`, as of {@link ENTRIES_FROM_MS} + n ms. */
export function auditEntry(n: number, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
  return {
    at: new Date(ENTRIES_FROM_MS + n).toISOString(),
    actor: { name: n % 2 ? 'oncall' : 'admin', role: n % 2 ? 'operator' : 'admin' },
    action: n % 2 ? 'POST /api/sessions/:id/messages' : 'DELETE /api/sessions/:id',
    sessionId: `session-${n}`,
    resource: null,
    status: n % 3 === 0 ? 403 : 201,
    code: n % 3 === 0 ? 'FORBIDDEN_ROLE' : null,
    ...overrides,
  };
}

/** Every page of `log`, `limit` at a time, newest first. */
async function allPages(log: AuditLog, limit: number): Promise<AuditEntry[][]> {
  const pages: AuditEntry[][] = [];
  let after: string | null = null;
  do {
    const page = await log.list({ limit, after });
    pages.push(page.items);
    after = page.next;
  } while (after !== null && pages.length < 100);
  return pages;
}

/**
 * Registers the audit log contract for the log `initializer` makes.
 * @throws MissingTestRunnerError as `describeMemoryBackendConformance` does.
 */
export function describeAuditLogConformance(
  initializer: AuditLogInitializer,
  options: ConformanceRunOptions = {},
): void {
  const t = resolveRunner(options.runner);
  const { describe, it, expect, afterEach, afterAll } = t;
  describe(`${initializer.name} audit log conformance`, () => {
    const replicas: AuditLog[] = [];
    const made: AuditLog[] = [];
    const destroy = (log: AuditLog) => initializer.destroyAuditLog?.(log);
    afterEach(async () => {
      await Promise.all(replicas.splice(0).map(destroy));
      await Promise.all(made.splice(0).map(destroy));
    });
    afterAll(async () => {
      await initializer.afterAll?.();
    });
    async function fresh(limits: Partial<AuditLogLimits> = {}) {
      const log = await initializer.createAuditLog(limits);
      made.push(log);
      return { log };
    }

    it('gives each entry an id and lists them newest first, exactly as appended', async () => {
      const { log } = await fresh();
      expect(await log.list()).toEqual({ items: [], next: null });
      const appended: AuditEntry[] = [];
      for (let n = 1; n <= 3; n++) appended.push(await log.append(auditEntry(n)));
      appended.push(
        await log.append(
          auditEntry(4, {
            sessionId: null,
            resource: 'tenant-7',
            action: 'DELETE /api/resources/:resource',
          }),
        ),
      );
      appended.forEach((entry, i) =>
        expect(entry).toEqual({
          ...auditEntry(
            i + 1,
            i === 3
              ? { sessionId: null, resource: 'tenant-7', action: 'DELETE /api/resources/:resource' }
              : {},
          ),
          id: entry.id,
        }),
      );
      expect(new Set(appended.map((entry) => entry.id)).size).toBe(4);
      expect(await log.list()).toEqual({ items: [...appended].reverse(), next: null });
    });

    it('pages with `after` without gaps or repeats, and refuses a cursor it did not make', async () => {
      const { log } = await fresh();
      const appended: AuditEntry[] = [];
      for (let n = 1; n <= 7; n++) appended.push(await log.append(auditEntry(n)));
      const pages = await allPages(log, 3);
      expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual([...appended].reverse());
      await expect(log.list({ after: 'not a cursor!' })).rejects.toBeInstanceOf(InvalidQueryError);
      await expect(log.list({ after: "1' OR 1=1 --" })).rejects.toBeInstanceOf(InvalidQueryError);
    });

    it('keeps at most maxEntries, always the newest', async () => {
      const { log } = await fresh({ maxEntries: 4 });
      const appended: AuditEntry[] = [];
      for (let n = 1; n <= 10; n++) appended.push(await log.append(auditEntry(n)));
      const listed = (await log.list({ limit: 100 })).items;
      expect(listed.length).toBeLessThanOrEqual(4);
      expect(listed.length).toBeGreaterThanOrEqual(2);
      expect(listed).toEqual([...appended].reverse().slice(0, listed.length));
    });

    it('lists no entry older than maxAgeMs', async () => {
      const { log } = await fresh({ maxAgeMs: 3_600_000 });
      await log.append(auditEntry(1, { at: new Date(Date.now() - 2 * 3_600_000).toISOString() }));
      const recent = await log.append(auditEntry(2));
      expect((await log.list()).items).toEqual([recent]);
    });

    it('takes concurrent appends without losing one', async () => {
      const { log } = await fresh();
      const appended = await Promise.all(
        Array.from({ length: 20 }, (_, n) => log.append(auditEntry(n + 1))),
      );
      expect(new Set(appended.map((entry) => entry.id)).size).toBe(20);
      const listed = (await log.list({ limit: 100 })).items;
      expect(listed.map((entry) => entry.sessionId).sort()).toEqual(
        appended.map((entry) => entry.sessionId).sort(),
      );
    });

    registration(
      t,
      'openReplica',
      initializer.openReplica !== undefined,
    )('is one log for every replica on the same storage', async () => {
      const { log } = await fresh();
      const other = await initializer.openReplica!(log, {});
      replicas.push(other);
      const first = await log.append(auditEntry(1));
      const second = await other.append(auditEntry(2));
      expect((await log.list()).items).toEqual([second, first]);
      expect((await other.list()).items).toEqual([second, first]);
    });
  });
}
