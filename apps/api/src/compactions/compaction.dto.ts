import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type {
  CompactionJob,
  CompactionJobError,
  CompactionJobState,
  CompactionResult,
} from '@agent-memory/api-contract';

/** OpenAPI shape of a failed job's error; `implements` the contract so drift fails the type check. */
export class CompactionJobErrorDto implements CompactionJobError {
  @ApiProperty({ example: 'LlmRequestError' }) name!: string;
  @ApiPropertyOptional({ description: 'the MemoryError code, when it was one' }) code?: string;
  @ApiProperty() message!: string;
}

/** OpenAPI shape of `GET /api/compactions/:jobId`. */
export class CompactionJobDto implements CompactionJob {
  @ApiProperty() id!: string;
  @ApiProperty() sessionId!: string;
  @ApiProperty() force!: boolean;
  @ApiProperty() dryRun!: boolean;
  @ApiProperty({ enum: ['queued', 'running', 'done', 'failed'] }) state!: CompactionJobState;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      '{ compacted, reason? (below-threshold, nothing-to-cover, no-gain, conflict), upTo?, tokensBefore, tokensAfter, snapshot? } once done',
  })
  result?: CompactionResult;
  @ApiPropertyOptional({ type: CompactionJobErrorDto, description: 'once failed' })
  error?: CompactionJobErrorDto;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) startedAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) finishedAt?: string;
}
