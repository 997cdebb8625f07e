import { Inject, Injectable, Logger } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CompactionService,
  MEMORY_BACKEND,
  TokenCounter,
  type MemoryBackend,
} from '@agent-memory/memory';
import { createMemoryMcpServer, MemoryMcpToolError } from '@agent-memory/memory/mcp';
import type { Request, Response } from 'express';
import { roleAllows } from '../auth/admin-role';
import type { TokenIdentity } from '../auth/admin-tokens';
import { AuditRecorder } from '../audit/audit-recorder';
import { CompactionJobsService } from '../compactions/compaction-jobs.service';
import { mcpToolRole } from './mcp-tool-roles';

/**
 * Serves one `/mcp` request in stateless mode: a new MCP server and Streamable HTTP transport per
 * request (no session to keep between requests or replicas), answered as JSON. The tools run over
 * the server's backend (with its recall), count tokens with its counter, compact through its
 * `CompactionService` and schedule a check after an append, as the REST routes do. A tool the
 * token's role does not allow answers `FORBIDDEN_ROLE` and runs nothing; every call of a tool that
 * changes data, refused or not, goes to the audit log.
 */
@Injectable()
export class McpHttpService {
  private readonly logger = new Logger('Mcp');

  constructor(
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
    private readonly tokens: TokenCounter,
    private readonly compaction: CompactionService,
    private readonly compactionJobs: CompactionJobsService,
    private readonly audit: AuditRecorder,
  ) {}

  /** Answers the JSON-RPC request in `req.body` (already parsed and bounded by the server). */
  async handle(req: Request, res: Response, identity: TokenIdentity): Promise<void> {
    const server = createMemoryMcpServer(this.backend, {
      tokenCounter: this.tokens,
      compact: (sessionId, opts) => this.compaction.compact(sessionId, opts),
      compactionThresholdTokens: this.compaction.thresholdTokens,
      afterAppend: (sessionId, _result, saved) => this.compactionJobs.afterTurn(sessionId, saved),
      authorize: ({ tool }) => {
        const needed = mcpToolRole(tool);
        if (!roleAllows(identity.role, needed)) {
          throw new MemoryMcpToolError(
            'FORBIDDEN_ROLE',
            `${tool} needs the ${needed} role or higher; the token "${identity.name}" has the ${identity.role} role`,
          );
        }
      },
      onToolResult: (outcome) => {
        if (outcome.changes) this.audit.recordToolCall(identity, outcome);
      },
      onError: (error, call) =>
        this.logger.error(
          `${call.tool} failed: ${error instanceof Error ? error.message : String(error)}`,
          error instanceof Error ? error.stack : undefined,
        ),
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}
