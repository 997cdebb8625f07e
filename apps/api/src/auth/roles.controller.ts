import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { RoleTable } from '@agent-memory/api-contract';
import { ApiErrorDto } from '../errors/api-error.dto';
import { ADMIN_ROLES } from './admin-role';
import { AdminTokenGuard } from './admin-token.guard';
import { RouteRoleTable } from './route-roles';

/** The prefix of the routes the bearer-token gate checks (and this table lists). */
const API_PREFIX = '/api/';

/**
 * `GET /api/roles`: the role order and every admin API route with the weakest role it needs, read
 * from the same table the auth gate decides with (the controllers' `@RequiredRole`, else reads for
 * viewers and changes for admins), so a client offers only the actions its token may take.
 */
@ApiTags('info')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: ApiErrorDto, description: 'missing or wrong bearer token' })
@UseGuards(AdminTokenGuard)
@Controller('api/roles')
export class RolesController {
  constructor(private readonly table: RouteRoleTable) {}

  @Get()
  @ApiOkResponse({
    description:
      '`{ roles: ["viewer", "operator", "admin"], routes: [{ method, pattern, role }] }`: roles ' +
      'weakest first; a route is allowed to its `role` and every role after it',
  })
  roles(): RoleTable {
    const routes = this.table
      .list()
      .filter((route) => route.pattern.toLowerCase().startsWith(API_PREFIX))
      .sort((a, b) => a.pattern.localeCompare(b.pattern) || a.method.localeCompare(b.method));
    return { roles: ADMIN_ROLES, routes };
  }
}
