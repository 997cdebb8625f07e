import { SetMetadata } from '@nestjs/common';
import type { AdminRole } from './admin-role';

/** Metadata key of {@link RequiredRole}. */
export const REQUIRED_ROLE_KEY = 'agent-memory:required-role';

/**
 * The role a route (or every route of a controller) needs, instead of the default: `viewer` for
 * reads, `admin` for changes (see `defaultRoleFor`). Use it to open a change to operators
 * (`@RequiredRole('operator')`) or to close a read to admins (`@RequiredRole('admin')`).
 */
export const RequiredRole = (role: AdminRole) => SetMetadata(REQUIRED_ROLE_KEY, role);
