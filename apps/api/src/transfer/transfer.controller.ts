import {
  Controller,
  Get,
  HttpCode,
  Inject,
  Logger,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiConsumes,
  ApiResponse,
  ApiOkResponse,
  ApiProduces,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  MEMORY_BACKEND,
  MEMORY_ERROR_HTTP_STATUS,
  ImportIncompleteError,
  MemoryError,
  exportSessions,
  importSessions,
  type ImportResult,
  type MemoryBackend,
} from '@agent-memory/memory';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ApiErrorDto } from '../errors/api-error.dto';
import { ApiHttpError, invalidField } from '../errors/api-http.error';
import { JSON_BODY_LIMITS } from '../body/json-body-shape';
import { MAX_IMPORT_LINE_BYTES, NDJSON, importRequestBody } from './import-request-body';

/** Moving sessions between stores: every session out as JSON Lines, JSON Lines in. */
@ApiTags('transfer')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@UseGuards(AdminTokenGuard)
@Controller('api')
export class TransferController {
  private readonly logger = new Logger(TransferController.name);

  constructor(@Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend) {}

  /**
   * Every session (or one resource's) as JSON Lines, streamed as the client reads: a failure
   * before the first line is a JSON error; one after it cuts the response short.
   */
  @Get('export')
  @ApiQuery({ name: 'resource', required: false, description: "only this resource's sessions" })
  @ApiProduces(NDJSON)
  @ApiOkResponse({ description: 'one session a line: `{ id, meta, snapshot, entries }`' })
  async export(@Query('resource') resource: unknown, @Res() res: Response): Promise<void> {
    if (resource !== undefined && (typeof resource !== 'string' || resource === '')) {
      throw invalidField('INVALID_QUERY', 'resource', 'give one non-empty resource');
    }
    const stop = new AbortController();
    // Closed: finished, or the client went away; either way nothing more is read.
    res.once('close', () => stop.abort());
    const lines = exportSessions(this.backend, {
      signal: stop.signal,
      ...(resource !== undefined ? { resource } : {}),
    });
    // The first line is read before the headers go, so a store that is down answers 503.
    const first = await lines.next();
    res.setHeader('content-disposition', 'attachment; filename="sessions.jsonl"');
    res.type(`${NDJSON}; charset=utf-8`);
    async function* all(): AsyncGenerator<string> {
      if (!first.done) yield first.value;
      yield* lines;
    }
    await pipeline(Readable.from(all()), res).catch((error: unknown) => {
      // The status is sent: cutting the response short is how the client learns of a failure.
      // A client that went away (the response closed first) is no failure of ours.
      if (!stop.signal.aborted) {
        this.logger.warn(
          `export cut short: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      res.destroy();
    });
  }

  /**
   * JSON Lines into the store, read a line at a time as the body arrives; idempotent (a session
   * the store already holds is skipped) and safe to send twice at once. Each line is bounded as a
   * JSON body is (depth, objects and arrays). A bad line stops the import there: the sessions
   * before it stay imported, and sending the same body again completes it. A store that fails
   * inside a session answers with the status of the store's error (507 for a full disk, 413 for a
   * session over the store's limit) and `IMPORT_INCOMPLETE`, naming what part of it is stored.
   */
  @Post('import')
  @HttpCode(200)
  @ApiConsumes(NDJSON)
  @ApiOkResponse({ description: '`{ imported, skipped }`' })
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: '`INVALID_IMPORT_LINE`: a line that is not a session, or past the bounds',
  })
  @ApiConflictResponse({ type: ApiErrorDto, description: '`IMPORT_CONFLICT`' })
  @ApiResponse({
    status: 415,
    type: ApiErrorDto,
    description: '`UNSUPPORTED_MEDIA_TYPE`: not uncompressed JSON Lines',
  })
  @ApiResponse({
    status: 507,
    type: ApiErrorDto,
    description:
      "`IMPORT_INCOMPLETE`: the store failed inside a session (with the store error's status: 507, 413, 503); the message names the part stored",
  })
  async importSessions(@Req() req: Request): Promise<ImportResult> {
    try {
      return await importSessions(this.backend, importRequestBody(req), {
        maxLineBytes: MAX_IMPORT_LINE_BYTES,
        lineShape: JSON_BODY_LIMITS,
      });
    } catch (error) {
      if (error instanceof ImportIncompleteError && error.cause instanceof MemoryError) {
        const status = MEMORY_ERROR_HTTP_STATUS[error.cause.code] ?? 500;
        if (status >= 500) this.logger.warn(error.message);
        throw new ApiHttpError(status, error.code, error.message);
      }
      throw error;
    }
  }
}
