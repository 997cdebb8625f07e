import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI shape of a failed job's error. */
export class CompactionJobErrorDto {
  @ApiProperty({ example: 'LlmRequestError' }) name!: string;
  @ApiPropertyOptional({ description: 'the MemoryError code, when it was one' }) code?: string;
  @ApiProperty() message!: string;
}

/** OpenAPI shape of `GET /api/compactions/:jobId`. */
export class CompactionJobDto {
  @ApiProperty() id!: string;
  @ApiProperty() sessionId!: string;
  @ApiProperty() force!: boolean;
  @ApiProperty() dryRun!: boolean;
  @ApiProperty({ enum: ['queued', 'running', 'done', 'failed'] }) state!: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: '{ compacted, reason?, upTo?, tokensBefore, tokensAfter, snapshot? } once done',
  })
  result?: unknown;
  @ApiPropertyOptional({ type: CompactionJobErrorDto, description: 'once failed' })
  error?: CompactionJobErrorDto;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) startedAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) finishedAt?: string;
}
