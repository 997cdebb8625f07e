import { Body, Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { RetentionSweepView, RetentionView } from '@agent-memory/api-contract';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ApiErrorDto } from '../errors/api-error.dto';
import { invalidField } from '../errors/api-http.error';
import { RetentionService } from './retention.service';

/** `GET /api/retention` and `POST /api/retention/sweep` (docs/admin-api.md#routes). */
@ApiTags('retention')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@UseGuards(AdminTokenGuard)
@Controller('api/retention')
export class RetentionController {
  constructor(private readonly retention: RetentionService) {}

  @Get()
  @ApiOkResponse({
    description:
      '`{ policy: { maxAge, maxIdle, maxAgeMs, maxIdleMs, action } | null, sweepIntervalMs, nextSweepAt }`',
  })
  view(): RetentionView {
    return this.retention.view();
  }

  @Post('sweep')
  @HttpCode(200)
  @ApiBody({
    required: false,
    schema: { type: 'object', properties: { dryRun: { type: 'boolean' } } },
  })
  @ApiOkResponse({ description: '`{ expired: [ids], action, dryRun }`' })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: '`field` names the bad body field' })
  @ApiConflictResponse({
    type: ApiErrorDto,
    description: 'RETENTION_NOT_CONFIGURED, or RETENTION_SWEEP_BUSY while another sweep runs',
  })
  sweep(@Body() body: unknown): Promise<RetentionSweepView> {
    return this.retention.sweep(parseSweepBody(body));
  }
}

/** `{ dryRun? }`; an empty body is a real sweep. Unknown fields are refused, naming them. */
export function parseSweepBody(body: unknown): { dryRun: boolean } {
  if (body === undefined || body === null) return { dryRun: false };
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw invalidField('INVALID_BODY', 'body', 'must be a JSON object such as {"dryRun": true}');
  }
  const { dryRun, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw invalidField('INVALID_BODY', unknown, 'is not a field of a sweep (only dryRun)');
  if (dryRun !== undefined && typeof dryRun !== 'boolean') {
    throw invalidField('INVALID_BODY', 'dryRun', 'must be true or false');
  }
  return { dryRun: dryRun ?? false };
}
