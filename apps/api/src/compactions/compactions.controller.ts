import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { CompactionJob } from '@agent-memory/memory';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { ApiErrorDto } from '../errors/api-error.dto';
import { CompactionJobDto } from './compaction.dto';
import { CompactionJobsService } from './compaction-jobs.service';

/** `GET /api/compactions/:jobId` (docs/admin-api.md#routes). */
@ApiTags('compactions')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto })
@UseGuards(AdminTokenGuard)
@Controller('api/compactions')
export class CompactionsController {
  constructor(private readonly compactionJobs: CompactionJobsService) {}

  @Get(':jobId')
  @ApiOkResponse({ type: CompactionJobDto })
  @ApiNotFoundResponse({ type: ApiErrorDto })
  job(@Param('jobId') jobId: string): Promise<CompactionJob> {
    return this.compactionJobs.job(jobId);
  }
}
