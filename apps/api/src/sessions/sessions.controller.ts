import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { RequiredRole } from '../auth/required-role.decorator';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiQuery,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { SessionInfo, SessionPage } from '@agent-memory/memory';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ApiErrorDto } from '../errors/api-error.dto';
import { CompactionJobsService } from '../compactions/compaction-jobs.service';
import {
  AppendMessagesDto,
  AppendedDto,
  CompactRequestDto,
  MessagesPageDto,
  SessionDetailDto,
  SessionInfoDto,
  SessionPageDto,
} from './session.dto';
import {
  parseAppendBody,
  parseCompactBody,
  parseIdempotencyKey,
  parseListQuery,
  parseMessagesQuery,
  parseMetaBody,
} from './session-request.parsers';
import { SessionsService } from './sessions.service';
import type {
  AppendResult,
  CompactAccepted,
  MessagesPage,
  SessionDetail,
} from '@agent-memory/api-contract';

/** The sessions routes (docs/admin-api.md#routes). Every route needs the admin bearer token. */
@ApiTags('sessions')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@ApiBadRequestResponse({
  type: ApiErrorDto,
  description: 'invalid session id, query or body; `field` names it',
})
@ApiServiceUnavailableResponse({
  type: ApiErrorDto,
  description: 'the memory backend is unreachable',
})
@UseGuards(AdminTokenGuard)
@Controller('api/sessions')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly compactionJobs: CompactionJobsService,
  ) {}

  @Get()
  @ApiQuery({ name: 'limit', required: false, description: 'page size, 1 to 500, default 50' })
  @ApiQuery({ name: 'after', required: false, description: '`next` of the previous page' })
  @ApiQuery({
    name: 'search',
    required: false,
    description: 'substring of the id or the title meta',
  })
  @ApiQuery({
    name: 'resource',
    required: false,
    description: 'only the sessions whose `resource` meta is exactly this value',
  })
  @ApiOkResponse({ type: SessionPageDto, description: 'newest update first' })
  list(@Query() query: Record<string, unknown>): Promise<SessionPage> {
    return this.sessions.list(parseListQuery(query));
  }

  @Get(':id')
  @ApiOkResponse({ type: SessionDetailDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  detail(@Param('id') id: string): Promise<SessionDetail> {
    return this.sessions.detail(id);
  }

  @Get(':id/messages')
  @ApiQuery({ name: 'after', required: false, description: 'cursor: entries after it' })
  @ApiQuery({ name: 'limit', required: false, description: 'page size, 1 to 500, default 100' })
  @ApiOkResponse({ type: MessagesPageDto, description: 'oldest first' })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  messages(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<MessagesPage> {
    return this.sessions.messages(id, parseMessagesQuery(query));
  }

  @Post(':id/messages')
  @RequiredRole('operator')
  @ApiBody({ type: AppendMessagesDto })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'makes a retry safe: a key this session has seen with the same body stores nothing and answers as the first time; with another body it is refused with 422 IDEMPOTENCY_KEY_REUSED (1–255 visible ASCII characters)',
  })
  @ApiCreatedResponse({ type: AppendedDto })
  append(
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: unknown,
  ): Promise<AppendResult> {
    return this.sessions.append(id, parseAppendBody(body), parseIdempotencyKey(idempotencyKey));
  }

  @Patch(':id/meta')
  @RequiredRole('operator')
  @ApiBody({
    schema: { type: 'object', additionalProperties: { type: 'string' } },
    description: "'' removes a key",
  })
  @ApiOkResponse({ type: SessionInfoDto })
  patchMeta(@Param('id') id: string, @Body() body: unknown): Promise<SessionInfo> {
    return this.sessions.patchMeta(id, parseMetaBody(body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ApiErrorDto })
  async delete(@Param('id') id: string): Promise<void> {
    await this.sessions.delete(id);
  }

  @Post(':id/compact')
  @RequiredRole('operator')
  @HttpCode(202)
  @ApiBody({ type: CompactRequestDto, required: false })
  @ApiAcceptedResponse({ schema: { type: 'object', properties: { jobId: { type: 'string' } } } })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  async compact(@Param('id') id: string, @Body() body: unknown): Promise<CompactAccepted> {
    const opts = parseCompactBody(body);
    await this.sessions.info(id);
    return { jobId: await this.compactionJobs.enqueue(id, opts) };
  }
}
