import { Controller, Delete, Param, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { EraseReceipt } from '@agent-memory/api-contract';
import { setAuditDetails } from '../audit/audit-details';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ApiErrorDto } from '../errors/api-error.dto';
import { parseResource } from '../sessions/session-request.parsers';
import { EraseReceiptDto } from './erase-receipt.dto';
import { ResourcesService } from './resources.service';

/** `DELETE /api/resources/:resource`: erase one person's (or tenant's) data. */
@ApiTags('resources')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@ApiServiceUnavailableResponse({
  type: ApiErrorDto,
  description: 'the memory backend is unreachable',
})
@UseGuards(AdminTokenGuard)
@Controller('api/resources')
export class ResourcesController {
  constructor(private readonly resources: ResourcesService) {}

  @Delete(':resource')
  @ApiOkResponse({
    type: EraseReceiptDto,
    description:
      'every session whose `resource` meta is this value is gone, with its messages, snapshot, metadata, idempotency keys, compaction jobs and recall vectors; all counts 0 when nothing was left',
  })
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: 'the resource is empty, too long or not storable text; `field` is `resource`',
  })
  async erase(@Param('resource') resource: string, @Req() req: Request): Promise<EraseReceipt> {
    const receipt = await this.resources.erase(parseResource(resource));
    // The audit entry keeps the receipt (the resource is the entry's own field).
    const { resource: _erased, ...kept } = receipt;
    setAuditDetails(req, { receipt: kept });
    return receipt;
  }
}
