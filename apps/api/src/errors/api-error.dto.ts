import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ApiErrorBody } from '@agent-memory/api-contract';

/** OpenAPI shape of the body of every error response, shared by all controllers. */
export class ApiErrorDto implements ApiErrorBody {
  @ApiProperty() statusCode!: number;
  @ApiProperty({ example: 'INVALID_MESSAGE' }) code!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ example: 'messages[0].role' }) field?: string;
}
