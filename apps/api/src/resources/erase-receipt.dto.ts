import { ApiProperty } from '@nestjs/swagger';
import type { EraseReceipt } from '@agent-memory/api-contract';

/** The OpenAPI schema of `DELETE /api/resources/:resource`'s answer. */
export class EraseReceiptDto implements EraseReceipt {
  @ApiProperty({ description: 'the `resource` meta value whose sessions were erased' })
  resource!: string;
  @ApiProperty({ description: 'sessions removed' }) sessions!: number;
  @ApiProperty({ description: 'messages removed (those the sessions still kept)' })
  messages!: number;
  @ApiProperty({ description: 'recall vectors removed (0 without recall)' }) vectors!: number;
  @ApiProperty({ format: 'date-time', description: 'when the erase finished' })
  erasedAt!: string;
}
