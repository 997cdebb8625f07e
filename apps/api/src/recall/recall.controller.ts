import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import type { RecallView } from '@agent-memory/api-contract';
import { RecallService } from './recall.service';

/** `GET /api/sessions/:id/recall?q=`: what semantic recall would add for that query. */
@ApiTags('sessions')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'missing or wrong bearer token' })
@UseGuards(AdminTokenGuard)
@Controller('api/sessions')
export class RecallController {
  constructor(private readonly recallService: RecallService) {}

  @Get(':id/recall')
  @ApiQuery({ name: 'q', required: true, description: 'the query, as a turn input would be' })
  @ApiOkResponse({
    description:
      '`{ query, ranges: [{ session, messages: [{ cursor, role, text, at, score }] }], message }`; ' +
      '501 RECALL_NOT_CONFIGURED when the server runs without recall',
  })
  @ApiNotFoundResponse({ description: 'unknown session' })
  recall(@Param('id') id: string, @Query('q') q: unknown): Promise<RecallView> {
    return this.recallService.recall(id, q);
  }
}
