import { RequiredRole } from '../auth/required-role.decorator';
import { Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { assertSessionId, sessionMarkdown } from '@agent-memory/memory';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { invalidField } from '../errors/api-http.error';
import { ApiErrorDto } from '../errors/api-error.dto';
import { parseMessagesQuery } from '../sessions/session-request.parsers';
import type { ContextTokens, SessionContext, TranscriptPage } from '@agent-memory/api-contract';
import { SessionViewsService } from './session-views.service';

/** Most sessions one `GET /api/context-tokens` counts. */
export const MAX_TOKEN_IDS = 100;

/** The dashboard's read routes on one session: transcript with tokens, model context, export. */
@ApiTags('sessions')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@ApiNotFoundResponse({ type: ApiErrorDto, description: 'unknown session' })
@UseGuards(AdminTokenGuard)
@Controller('api')
export class SessionViewsController {
  constructor(private readonly views: SessionViewsService) {}

  /** The stored log, oldest first, each message with `covered` and its `tokens`. */
  @Get('sessions/:id/transcript')
  @ApiQuery({ name: 'after', required: false, description: 'cursor: entries after it' })
  @ApiQuery({ name: 'limit', required: false, description: 'page size, 1 to 500, default 100' })
  @ApiOkResponse({ description: '`{ items: (Entry & { covered, tokens })[], next }`' })
  transcript(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<TranscriptPage> {
    return this.views.transcript(id, parseMessagesQuery(query));
  }

  /** Context tokens of up to 100 sessions at once (`ids` comma-separated), for the list's rows. */
  @Get('context-tokens')
  @ApiQuery({
    name: 'ids',
    required: true,
    description: 'comma-separated session ids, at most 100',
  })
  @ApiOkResponse({ description: '`{ [id]: tokens | null }` (null: no such session)' })
  contextTokens(@Query('ids') ids: unknown): Promise<ContextTokens> {
    if (typeof ids !== 'string' || ids === '') {
      throw invalidField('INVALID_QUERY', 'ids', 'give the session ids, comma-separated');
    }
    const list = [...new Set(ids.split(','))];
    if (list.length > MAX_TOKEN_IDS) {
      throw invalidField('INVALID_QUERY', 'ids', `at most ${MAX_TOKEN_IDS} ids`);
    }
    for (const id of list) assertSessionId(id);
    return this.views.contextTokens(list);
  }

  /** Exactly what `retrieve()` returns now, each message tagged summary, pinned or tail. */
  @Get('sessions/:id/context')
  @ApiOkResponse({
    description:
      '`{ messages, tokens: { summary, pinned, tail, priming, total }, compactAt, snapshot }`: the parts add up to `total`; `priming` is the reply priming the request adds once',
  })
  @ApiQuery({
    name: 'messages',
    required: false,
    enum: ['0', '1'],
    description: '0: token totals only, no messages (default 1)',
  })
  async context(
    @Param('id') id: string,
    @Query('messages') withMessages: unknown,
  ): Promise<SessionContext> {
    if (withMessages !== undefined && withMessages !== '0' && withMessages !== '1') {
      throw invalidField('INVALID_QUERY', 'messages', 'must be 0 or 1');
    }
    const context = await this.views.context(id);
    return withMessages === '0' ? { ...context, messages: [] } : context;
  }

  /** Removes the session's messages, snapshot and metadata (its counts restart at 0). */
  @Post('sessions/:id/clear')
  @RequiredRole('operator')
  @HttpCode(204)
  @ApiNoContentResponse()
  async clear(@Param('id') id: string): Promise<void> {
    await this.views.clear(id);
  }

  /**
   * The whole session (log, snapshot, meta) as a JSON or Markdown download, or as the one line
   * `POST /api/import` takes (`jsonl`).
   */
  @Get('sessions/:id/export')
  @ApiQuery({
    name: 'format',
    required: false,
    enum: ['json', 'md', 'jsonl'],
    description: 'default json',
  })
  @ApiProduces('application/json', 'text/markdown', 'application/x-ndjson')
  async export(
    @Param('id') id: string,
    @Query('format') format: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const kind = format === undefined || format === '' ? 'json' : format;
    if (kind !== 'json' && kind !== 'md' && kind !== 'jsonl') {
      throw invalidField('INVALID_QUERY', 'format', 'must be json, md or jsonl');
    }
    if (kind === 'jsonl') {
      const line = await this.views.exportLine(id);
      res.setHeader('content-disposition', `attachment; filename="${id}.jsonl"`);
      res.type('application/x-ndjson; charset=utf-8').send(line);
      return;
    }
    const doc = await this.views.export(id);
    res.setHeader('content-disposition', `attachment; filename="${id}.${kind}"`);
    if (kind === 'md') {
      res.type('text/markdown; charset=utf-8').send(
        sessionMarkdown({
          info: doc.session,
          snapshot: doc.snapshot,
          entries: doc.messages,
          exportedAt: doc.exportedAt,
        }),
      );
    } else {
      res.type('application/json; charset=utf-8').send(JSON.stringify(doc, null, 2));
    }
  }
}
