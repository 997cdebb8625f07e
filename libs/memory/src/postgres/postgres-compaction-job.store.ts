import type { DataSource } from 'typeorm';
import type {
  CompactionJobStore,
  StoredCompactionJob,
} from '../core/compaction-job-store.interface';
import { memoryTableNames, type MemoryTableNames } from './memory-table-names';
import { pgRequest } from '../pg-errors/postgres-request.error';

/** How often, at most, a write also deletes the expired jobs (ms). */
const EXPIRED_SWEEP_INTERVAL_MS = 60_000;

/** The quoted, schema-qualified name of the jobs table of `names` (`<table>_jobs`). */
export function compactionJobsTable(names: MemoryTableNames): string {
  const name = `${names.base}_jobs`;
  return names.schema ? `"${names.schema}"."${name}"` : `"${name}"`;
}

/**
 * Compaction job states in PostgreSQL, next to the sessions: the `<table>_jobs` table that the
 * memory migrations create (one row per job, upserted at each change). Expired rows are deleted
 * by a write at most once a minute.
 */
export class PostgresCompactionJobStore implements CompactionJobStore {
  private readonly table: string;
  /** The upsert of `put`, and the same with its update only for a job that finished no earlier. */
  private readonly upserts: { always: string; ifNewer: string; unlessHeld: string };
  private nextSweepAt = 0;

  /**
   * @param dataSource the backend's DataSource (`postgresBackend(...).dataSource`); not closed here.
   * @param table the backend's `table` option; default `conversation_memory`.
   * @param now the clock of the sweeps (epoch ms).
   * @throws RangeError when `table` is not a valid name.
   */
  constructor(
    private readonly dataSource: DataSource,
    table?: string,
    private readonly now: () => number = Date.now,
  ) {
    this.table = compactionJobsTable(memoryTableNames(table));
    const upsert = `INSERT INTO ${this.table} AS stored (job_id, job, expires_at)
      VALUES ($1, $2, to_timestamp($3::double precision / 1000))
      ON CONFLICT (job_id) DO UPDATE SET job = EXCLUDED.job, expires_at = EXCLUDED.expires_at`;
    const finished = (alias: string) =>
      `coalesce((${alias}.job->>'finishedAt')::timestamptz, '-infinity')`;
    this.upserts = {
      always: upsert,
      ifNewer: `${upsert} WHERE ${finished('stored')} <= ${finished('EXCLUDED')} RETURNING job_id`,
      // The condition of `heldByAnother`, negated; $4 is the caller's clock (epoch ms).
      unlessHeld: `${upsert} WHERE NOT (
          stored.job->>'state' IN ('queued', 'running')
          AND stored.job->>'owner' IS DISTINCT FROM EXCLUDED.job->>'owner'
          AND (stored.job->>'leaseExpiresAt')::double precision > $4::double precision
        ) RETURNING job_id`,
    };
  }

  /** @throws PostgresRequestError when the database does not answer. */
  async put(job: StoredCompactionJob): Promise<void> {
    await this.upsert(this.upserts.always, job);
  }

  /**
   * One upsert whose update is conditional: the row lock of `ON CONFLICT` orders it after any
   * concurrent write of the same id, and the condition then sees that write.
   * @throws PostgresRequestError when the database does not answer.
   */
  async putIfNewer(job: StoredCompactionJob): Promise<boolean> {
    const rows = await this.upsert(this.upserts.ifNewer, job);
    return rows.length > 0;
  }

  /**
   * One conditional upsert, ordered after any concurrent write of the id by the row lock of
   * `ON CONFLICT` (the condition of `heldByAnother`).
   * @throws PostgresRequestError when the database does not answer.
   */
  async claim(job: StoredCompactionJob, now: number): Promise<boolean> {
    const rows = await this.upsert(this.upserts.unlessHeld, job, [now]);
    return rows.length > 0;
  }

  private async upsert(
    sql: string,
    job: StoredCompactionJob,
    extra: unknown[] = [],
  ): Promise<unknown[]> {
    const rows = (await pgRequest('store a compaction job', job.sessionId, () =>
      this.dataSource.query(sql, [job.id, JSON.stringify(job), job.expiresAt, ...extra]),
    )) as unknown[];
    await this.sweepIfDue();
    return rows;
  }

  /** Deletes the expired rows, at most once every {@link EXPIRED_SWEEP_INTERVAL_MS}. */
  private async sweepIfDue(): Promise<void> {
    const now = this.now();
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + EXPIRED_SWEEP_INTERVAL_MS;
    await pgRequest('delete expired compaction jobs', null, () =>
      this.dataSource.query(
        `DELETE FROM ${this.table} WHERE expires_at < to_timestamp($1::double precision / 1000)`,
        [now],
      ),
    );
  }

  /** @throws PostgresRequestError when the database does not answer. */
  async deleteForSessions(sessionIds: readonly string[]): Promise<number> {
    if (sessionIds.length === 0) return 0;
    const [row] = (await pgRequest('delete compaction jobs', null, () =>
      this.dataSource.query(
        `WITH gone AS (
           DELETE FROM ${this.table} WHERE job->>'sessionId' = ANY($1::text[]) RETURNING 1
         )
         SELECT count(*) AS deleted FROM gone`,
        [sessionIds],
      ),
    )) as [{ deleted: string }];
    return Number(row.deleted);
  }

  /** @throws PostgresRequestError when the database does not answer. */
  async get(jobId: string): Promise<StoredCompactionJob | null> {
    const rows = (await pgRequest('read a compaction job', null, () =>
      this.dataSource.query(`SELECT job FROM ${this.table} WHERE job_id = $1`, [jobId]),
    )) as { job: StoredCompactionJob }[];
    return rows[0]?.job ?? null;
  }
}
