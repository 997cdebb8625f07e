import { Body, Controller, Get, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
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
import { MAX_AUDIT_EXPIRED_IDS } from '../audit/audit-bounds';
import { setAuditDetails } from '../audit/audit-details';
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
    description: 'only `{"dryRun": false}` expires sessions; no body, or no `dryRun`, is a dry run',
    schema: { type: 'object', properties: { dryRun: { type: 'boolean', default: true } } },
  })
  @ApiOkResponse({ description: '`{ expired: [ids], action, dryRun }`' })
  @ApiBadRequestResponse({ type: ApiErrorDto, description: '`field` names the bad body field' })
  @ApiConflictResponse({
    type: ApiErrorDto,
    description: 'RETENTION_NOT_CONFIGURED, or RETENTION_SWEEP_BUSY while another sweep runs',
  })
  async sweep(@Body() body: unknown, @Req() req: Request): Promise<RetentionSweepView> {
    const opts = parseSweepBody(body);
    // A refused or failed sweep's entry still says which kind it was.
    setAuditDetails(req, { dryRun: opts.dryRun });
    const result = await this.retention.sweep(opts);
    setAuditDetails(req, {
      dryRun: result.dryRun,
      expired: result.expired.slice(0, MAX_AUDIT_EXPIRED_IDS),
      expiredCount: result.expired.length,
    });
    return result;
  }
}

/**
 * `{ dryRun? }`: only an explicit `{"dryRun": false}` changes anything; no body, an empty body or
 * no `dryRun` is a dry run. Unknown fields are refused, naming them.
 */
export function parseSweepBody(body: unknown): { dryRun: boolean } {
  if (body === undefined || body === null) return { dryRun: true };
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
  return { dryRun: dryRun ?? true };
}
