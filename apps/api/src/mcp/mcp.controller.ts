import { Controller, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { RequiredRole } from '../auth/required-role.decorator';
import { requestIdentity } from '../auth/request-identity';
import { McpHttpService } from './mcp-http.service';
import { MCP_PATH } from './mcp.constants';

/** A JSON-RPC error answer with HTTP status `status`, as the SDK's transport answers its own. */
function jsonRpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * `/mcp`: the memory's Model Context Protocol tools over Streamable HTTP (stateless, JSON
 * answers). Any token may connect; each tool checks the token's role (see `mcpToolRole`). GET (a
 * server-sent event stream) has nothing to serve without sessions: 405, which MCP clients expect
 * from a stateless server.
 */
@ApiTags('mcp')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: 'missing or wrong bearer token' })
@UseGuards(AdminTokenGuard)
@RequiredRole('viewer')
@Controller(MCP_PATH)
export class McpController {
  constructor(private readonly mcp: McpHttpService) {}

  @Post()
  @ApiOkResponse({
    description:
      'A JSON-RPC message of the Model Context Protocol (initialize, tools/list, tools/call, resources/list, resources/read); see docs/mcp.md',
  })
  async post(@Req() req: Request, @Res() res: Response): Promise<void> {
    // Every body the SDK sees went through the server's bounded JSON parser; one it left unread
    // (another content type) is refused here, whatever checks the installed SDK makes itself.
    const hasBody =
      req.headers['transfer-encoding'] !== undefined ||
      Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && req.body === undefined) {
      jsonRpcError(res, 415, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    await this.mcp.handle(req, res, requestIdentity(req)!);
  }

  @Get()
  get(@Res() res: Response): void {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, 'Method not allowed: this MCP endpoint is stateless, POST only');
  }
}
