import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { AuditLog } from '@agent-memory/memory';
import type { AuditPage } from '@agent-memory/api-contract';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { RequiredRole } from '../auth/required-role.decorator';
import { ApiErrorDto } from '../errors/api-error.dto';
import { parseListQuery } from '../sessions/session-request.parsers';
import { AUDIT_LOG } from './audit.injection';

/**
 * `GET /api/audit?limit&after`: the changes made through the API, newest first. Admins only: the
 * log names every token and what it touched.
 */
@ApiTags('audit')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@ApiForbiddenResponse({
  type: ApiErrorDto,
  description: 'FORBIDDEN_ROLE: the token is not an admin',
})
@UseGuards(AdminTokenGuard)
@Controller('api/audit')
export class AuditController {
  constructor(@Inject(AUDIT_LOG) private readonly log: AuditLog) {}

  @Get()
  @RequiredRole('admin')
  @ApiQuery({ name: 'limit', required: false, description: '1-500, default 50' })
  @ApiQuery({ name: 'after', required: false, description: 'the `next` of the previous page' })
  @ApiOkResponse({
    description:
      "`{ items: [{ id, at, actor: { name, role }, action, sessionId, resource, status, code, details? }], next }`; `details`: a sweep's `dryRun`, `expired`, `expiredCount`, an erase's `receipt`",
  })
  async list(@Query() query: Record<string, unknown>): Promise<AuditPage> {
    const { limit, after } = parseListQuery(query);
    const page = await this.log.list({ limit, after: after ?? null });
    return {
      items: page.items.map((entry) => ({
        ...entry,
        actor: {
          name: entry.actor.name,
          role: entry.actor.role as AuditPage['items'][number]['actor']['role'],
        },
      })),
      next: page.next,
    };
  }
}
