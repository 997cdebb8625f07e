import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CompactionJobDto } from '../compactions/compaction.dto';
import type { CompactOptions } from '@agent-memory/memory';
import type {
  AppendResult,
  CoveredEntry,
  Message,
  MessagesPage,
  SessionDetail,
  SessionInfo,
  SessionPage,
  StoredSnapshot,
} from '@agent-memory/api-contract';

/**
 * OpenAPI shapes of the sessions routes (documentation only; bodies are checked by the parsers).
 * Each `implements` its contract type, so a field the contract adds or retypes fails the type check.
 */

const MESSAGE_SCHEMA: SchemaObject = {
  type: 'object',
  description:
    'A message: role, parts, toolCalls?, toolCallId?, toolError?, name?, providerData? (docs/storage-formats.md)',
  properties: {
    role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool'] },
    parts: { type: 'array', items: { type: 'object' } },
    toolCalls: { type: 'array', items: { type: 'object' } },
    toolCallId: { type: 'string' },
    toolError: { type: 'boolean' },
    name: { type: 'string' },
    providerData: {
      type: 'object',
      additionalProperties: true,
      description: 'fields an agent SDK carries beyond the model, stored and returned as given',
    },
  },
  required: ['role', 'parts'],
};

export class SessionInfoDto implements SessionInfo {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'messages ever saved (outlives pruning)' }) messages!: number;
  @ApiProperty({ description: 'messages kept now' }) stored!: number;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty() hasSnapshot!: boolean;
  @ApiProperty({ type: Number, nullable: true }) snapshotUpTo!: number | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) meta!: Record<
    string,
    string
  >;
}

export class SessionPageDto implements SessionPage {
  @ApiProperty({ type: [SessionInfoDto] }) items!: SessionInfoDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `after` for the next page' })
  next!: string | null;
}

export class StoredSnapshotDto implements StoredSnapshot {
  @ApiProperty() summary!: string;
  @ApiPropertyOptional({ type: 'array', items: MESSAGE_SCHEMA }) pinned?: Message[];
  @ApiProperty({ description: 'cursor of the last covered message' }) upTo!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class SessionDetailDto extends SessionInfoDto implements SessionDetail {
  @ApiProperty({ type: StoredSnapshotDto, nullable: true }) snapshot!: StoredSnapshotDto | null;
  @ApiProperty({ description: 'tokens of the context retrieve() returns now' }) tokens!: number;
  @ApiProperty({ description: 'COMPACT_AT_TOKENS: the context size that triggers compaction' })
  compactAt!: number;
  @ApiProperty({
    type: CompactionJobDto,
    nullable: true,
    description:
      'the last compaction of this session, from any replica (kept COMPACTION_JOB_TTL_MS)',
  })
  lastCompaction!: CompactionJobDto | null;
}

export class SessionEntryDto implements CoveredEntry {
  @ApiProperty() cursor!: number;
  @ApiProperty({
    type: 'object',
    description: MESSAGE_SCHEMA.description,
    additionalProperties: true,
  })
  message!: Message;
  @ApiProperty({
    description: 'true when the snapshot covers this message (cursor <= snapshot.upTo)',
  })
  covered!: boolean;
}

export class MessagesPageDto implements MessagesPage {
  @ApiProperty({ type: [SessionEntryDto], description: 'oldest first' }) items!: SessionEntryDto[];
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'cursor to pass as `after` for the next page',
  })
  next!: number | null;
}

export class AppendMessagesDto {
  @ApiProperty({ type: 'array', items: MESSAGE_SCHEMA, minItems: 1, maxItems: 500 })
  messages!: unknown[];
}

export class AppendedDto implements AppendResult {
  @ApiProperty({ description: 'messages stored (for a replay: by the first request)' })
  appended!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'cursor of the first stored message' })
  first!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'cursor of the last stored message' })
  last!: number | null;
  @ApiProperty({
    description: 'true when the Idempotency-Key was seen before: nothing was stored this time',
  })
  replayed!: boolean;
}

export class CompactRequestDto implements Pick<CompactOptions, 'force' | 'dryRun'> {
  @ApiPropertyOptional({ description: 'compact even under the threshold' }) force?: boolean;
  @ApiPropertyOptional({ description: 'compute the result without saving a snapshot' })
  dryRun?: boolean;
}
