import { Injectable, RequestMethod, type OnModuleInit } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { defaultRoleFor, type AdminRole } from './admin-role';
import { REQUIRED_ROLE_KEY } from './required-role.decorator';

/** A route the gate knows before routing: its method, pattern and the role it needs. */
export interface RouteRole {
  /** Upper-case HTTP method, such as `DELETE`. */
  method: string;
  /** The route's pattern as declared, such as `/api/sessions/:id`. */
  pattern: string;
  /** The role a token needs to call it. */
  role: AdminRole;
}

/** A request matched to its route, with the route's parameters (`{ id: 's-1' }`). */
export interface MatchedRoute extends RouteRole {
  params: Record<string, string>;
}

interface CompiledRoute extends RouteRole {
  /** The pattern's segments, lower case; `:name` matches any one segment. */
  segments: string[];
  /** How many segments are parameters: fewer wins when two routes match. */
  paramCount: number;
}

/**
 * Every controller route of the app with the role it needs (`@RequiredRole`, else
 * `defaultRoleFor` its method), collected once at start-up so the auth gate can decide on a
 * request's role before its body is read or a route is run.
 */
@Injectable()
export class RouteRoleTable implements OnModuleInit {
  private routes: CompiledRoute[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const routes: CompiledRoute[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller || !controller.prototype) continue;
      const base = pathsOf(this.reflector.get(PATH_METADATA, controller));
      for (const methodName of this.scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[methodName] as (
          ...args: unknown[]
        ) => unknown;
        const requestMethod = this.reflector.get<RequestMethod | undefined>(
          METHOD_METADATA,
          handler,
        );
        if (requestMethod === undefined) continue;
        const method = RequestMethod[requestMethod];
        const role =
          this.reflector.getAllAndOverride<AdminRole | undefined>(REQUIRED_ROLE_KEY, [
            handler,
            controller,
          ]) ?? defaultRoleFor(method);
        for (const prefix of base) {
          for (const path of pathsOf(this.reflector.get(PATH_METADATA, handler))) {
            routes.push(compile(method, joinPaths(prefix, path), role));
          }
        }
      }
    }
    this.routes = routes;
  }

  /** Every route, for documentation and tests. */
  list(): RouteRole[] {
    return this.routes.map(({ method, pattern, role }) => ({ method, pattern, role }));
  }

  /**
   * The route `method` and `path` reach, or null when none does.
   * @param path the request's path as the router splits it (`routedPath`: lower case, escaped
   * slashes kept inside their segment, no trailing slash).
   * @param rawPath the same in its own case (`routedPath(path, true)`), to read parameters from
   * when it spells the same segments; else they are read from `path`. Parameters are
   * percent-decoded as the router decodes them (`a%2Fb` is `a/b`).
   */
  match(method: string, path: string, rawPath?: string): MatchedRoute | null {
    const upper = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    const segments = splitPath(path);
    let best: { route: CompiledRoute; params: Record<string, string> } | null = null;
    for (const route of this.routes) {
      if (route.method !== upper && route.method !== 'ALL') continue;
      const params = matchSegments(route.segments, segments);
      if (params && (!best || route.paramCount < best.route.paramCount)) best = { route, params };
    }
    if (!best) return null;
    const rawSegments = rawPath === undefined ? [] : splitPath(rawPath);
    const params =
      rawSegments.length === segments.length &&
      rawSegments.every((segment, i) => segment.toLowerCase() === segments[i])
        ? (matchSegments(best.route.segments, rawSegments, false) ?? best.params)
        : best.params;
    const { method: routeMethod, pattern, role } = best.route;
    return { method: routeMethod, pattern, role, params: decodeParams(params) };
  }
}

function pathsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [typeof value === 'string' ? value : '/'];
}

function joinPaths(prefix: string, path: string): string {
  const joined = `/${prefix}/${path}`.replace(/\/+/g, '/');
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

function compile(method: string, pattern: string, role: AdminRole): CompiledRoute {
  const segments = splitPath(pattern).map((segment) =>
    segment.startsWith(':') ? segment : segment.toLowerCase(),
  );
  const paramCount = segments.filter((segment) => segment.startsWith(':')).length;
  return { method, pattern, role, segments, paramCount };
}

function splitPath(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/** Each parameter percent-decoded (left as sent when it is no valid escape sequence). */
function decodeParams(params: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      decoded[name] = value;
    }
  }
  return decoded;
}

/** The parameters when `actual` fits `pattern` segment by segment, else null. */
function matchSegments(
  pattern: readonly string[],
  actual: readonly string[],
  lowerCase = true,
): Record<string, string> | null {
  if (pattern.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const segment = actual[i]!;
    if (expected.startsWith(':')) params[expected.slice(1)] = segment;
    else if (expected !== (lowerCase ? segment : segment.toLowerCase())) return null;
  }
  return params;
}
