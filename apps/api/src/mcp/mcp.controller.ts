import { Controller, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { RequiredRole } from '../auth/required-role.decorator';
import { requestIdentity } from '../auth/request-identity';
import { McpHttpService } from './mcp-http.service';
import { MCP_PATH } from './mcp.constants';

/** JSON-RPC's answer to a method the stateless endpoint does not serve. */
function methodNotAllowed(res: Response): void {
  res
    .status(405)
    .setHeader('Allow', 'POST')
    .json({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Method not allowed: this MCP endpoint is stateless, POST only',
      },
      id: null,
    });
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
    await this.mcp.handle(req, res, requestIdentity(req)!);
  }

  @Get()
  get(@Res() res: Response): void {
    methodNotAllowed(res);
  }
}
