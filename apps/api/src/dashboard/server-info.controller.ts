import { Controller, Get, Inject, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { requestIdentity } from '../auth/request-identity';
import type { ApiConfig } from '../config/api-config';
import { API_CONFIG } from '../config/api-config.module';
import { ApiErrorDto } from '../errors/api-error.dto';
import type { ServerInfo } from '@agent-memory/api-contract';

/**
 * `GET /api/info`: the backend and compaction settings the dashboard's header shows, and who the
 * request's token is (`{ name, role }`).
 */
@ApiTags('info')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@UseGuards(AdminTokenGuard)
@Controller('api/info')
export class ServerInfoController {
  constructor(@Inject(API_CONFIG) private readonly config: ApiConfig) {}

  @Get()
  @ApiOkResponse({
    description:
      '`{ backend, compaction: { mode, thresholdTokens, keepRecent, summarizer, model }, ' +
      'recall: { embedder, store, topK, scope } | null, token: { name, role } }`',
  })
  info(@Req() request: Request): ServerInfo {
    // The guard has signed the request in before the handler runs.
    const token = requestIdentity(request)!;
    return {
      backend: this.config.backend,
      compaction: {
        mode: this.config.compactionMode,
        thresholdTokens: this.config.compactAtTokens,
        keepRecent: this.config.compactKeepRecent,
        summarizer: this.config.llm ? 'llm' : 'extractive',
        model: this.config.llm?.model ?? null,
      },
      recall: this.config.recall
        ? {
            embedder: this.config.recall.embedder,
            store: this.config.recall.store,
            topK: this.config.recall.topK,
            scope: this.config.recall.scope,
          }
        : null,
      token,
    };
  }
}
