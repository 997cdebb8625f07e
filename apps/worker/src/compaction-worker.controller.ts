import { Controller, Logger, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CompactionService,
  describeCompactionError,
  type CompactionRequest,
  type CompactionWorkerReply,
} from '@agent-memory/memory';

/**
 * The controller that answers compaction checks on `subject` (a NATS request from a
 * `CompactionService` in `mode: 'nats'`): it runs the check with this worker's inline
 * `CompactionService` (one at a time per session) and replies `done`, `failed` or, while the
 * worker shuts down, `abandoned` (the publisher then sends the check to another worker).
 * A class per subject, because a `@MessagePattern` is fixed when its class is declared.
 */
export function compactionWorkerController(subject: string): Type<unknown> {
  @Controller()
  class CompactionWorkerController {
    private readonly logger = new Logger('CompactionWorker');

    constructor(private readonly compaction: CompactionService) {}

    @MessagePattern(subject)
    async check(@Payload() request: CompactionRequest): Promise<CompactionWorkerReply> {
      if (this.compaction.isShuttingDown)
        return { status: 'abandoned', reason: 'the worker is shutting down' };
      if (typeof request?.sessionId !== 'string') {
        return {
          status: 'failed',
          error: { name: 'TypeError', message: 'the check names no "sessionId"' },
        };
      }
      try {
        const result = await this.compaction.compact(request.sessionId, {
          force: request.force === true,
          dryRun: request.dryRun === true,
        });
        return { status: 'done', result };
      } catch (error) {
        if (this.compaction.isShuttingDown) {
          return { status: 'abandoned', reason: 'the worker shut down during the check' };
        }
        const described = describeCompactionError(error);
        this.logger.warn(
          `compaction of session "${request.sessionId}" failed: ${described.message}`,
        );
        return { status: 'failed', error: described };
      }
    }
  }
  return CompactionWorkerController;
}
