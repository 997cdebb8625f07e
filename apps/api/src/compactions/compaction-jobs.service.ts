import { Injectable } from '@nestjs/common';
import { CompactionService, type CompactionJob, type Message } from '@agent-memory/memory';
import { ApiHttpError } from '../errors/api-http.error';

/** Longest job id looked up (ours are UUIDs). */
const MAX_JOB_ID_LENGTH = 128;

/**
 * The admin API's compaction jobs: queues them (refused while shutting down) and looks them up for
 * `GET /api/compactions/:jobId`, over the memory module's `CompactionService`.
 */
@Injectable()
export class CompactionJobsService {
  constructor(private readonly compaction: CompactionService) {}

  /**
   * Queues a check and resolves with its id once the job is stored where every replica reads it.
   * @throws ApiHttpError 503 `SHUTTING_DOWN` once the server is shutting down.
   */
  async enqueue(sessionId: string, opts: { force: boolean; dryRun: boolean }): Promise<string> {
    if (this.compaction.isShuttingDown) {
      throw new ApiHttpError(
        503,
        'SHUTTING_DOWN',
        'the server is shutting down and takes no compaction jobs; retry on another replica',
      );
    }
    return (await this.compaction.submit(sessionId, opts)).jobId;
  }

  /**
   * Asks for a threshold check after new messages; it runs off the request path. Given the saved
   * messages, the check adds their tokens to the session's last count instead of reading it all.
   */
  afterTurn(sessionId: string, saved?: readonly Message[]): void {
    this.compaction.afterTurn(sessionId, saved);
  }

  /**
   * The job, from this replica or from the shared job store (any replica's).
   * @throws ApiHttpError 404 `JOB_NOT_FOUND`; the job store's error when it cannot be read.
   */
  async job(jobId: string): Promise<CompactionJob> {
    const job = jobId.length <= MAX_JOB_ID_LENGTH ? await this.compaction.lookup(jobId) : null;
    if (!job) {
      throw new ApiHttpError(
        404,
        'JOB_NOT_FOUND',
        `compaction job "${jobId.slice(0, MAX_JOB_ID_LENGTH)}" does not exist (finished jobs are forgotten after a while)`,
      );
    }
    return job;
  }
}
