import {
  ConsoleLogger,
  type INestApplication,
  type LoggerService,
  type LogLevel,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { json } from 'express';
import type { AddressInfo } from 'node:net';
import { ADMIN_DIST_DIR, AppModule } from './app.module';
import { adminAuthGate } from './auth/admin-auth.middleware';
import { AdminToken } from './auth/admin-token';
import { AdminTokens } from './auth/admin-tokens';
import { FailedAuthLimiter } from './auth/failed-auth.limiter';
import { RouteRoleTable } from './auth/route-roles';
import { isChangeMethod } from './auth/admin-role';
import { AuditRecorder } from './audit/audit-recorder';
import { dashboardScriptHashes } from './dashboard/inline-script-hashes';
import { verifyJsonBodyShape } from './body/json-body-shape';
import { importMediaTypeGate } from './transfer/import-request-body';
import { answerClientErrorsInApiShape } from './errors/client-error.responder';
import { bodyParseErrors } from './errors/body-parse.errors';
import { parseApiConfig, type ApiConfig } from './config/api-config';
import { MemoryMetrics } from './metrics/memory-metrics';
import { securityHeaders } from './security/security-headers';
import { MCP_PATH } from './mcp/mcp.constants';

/** Largest JSON body the API reads. */
export const MAX_BODY_SIZE = '4mb';

/** The OpenAPI page and document: readable without the token. */
const OPEN_API_PATHS = ['/api/docs', '/api/docs-json'] as const;

export interface ApiServerOptions {
  /** The environment to read the settings from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Nest's logger, or the levels to log; default Nest's console logger (JSON with `LOG_FORMAT=json`). */
  logger?: LoggerService | LogLevel[] | false;
  /** The dashboard's built files; default `apps/admin/dist`. */
  adminDistDir?: string;
}

export interface ApiServer {
  app: INestApplication;
  config: ApiConfig;
  /**
   * `MEMORY_ADMIN_TOKEN`, or the random admin token made when no token at all is configured; null
   * when only named tokens are (`MEMORY_ADMIN_TOKENS`, `MEMORY_ADMIN_TOKENS_FILE`).
   */
  token: AdminToken | null;
  /** Every token the API accepts, with its name and role. */
  tokens: AdminTokens;
  /** `http://<host>:<port>` once listening. */
  url: string;
  /** What to open in a browser: the dashboard with the admin token, `<url>/?token=<token>` (`<url>/` without one). */
  dashboardUrl: string;
}

/** Levels the server logs by default: per-call debug lines stay off. */
const DEFAULT_LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log'];

/** Nest's console logger, one JSON object a line with `LOG_FORMAT=json` (the production default). */
function serverLogger(config: ApiConfig): LoggerService {
  return new ConsoleLogger({ json: config.logFormat === 'json', logLevels: DEFAULT_LOG_LEVELS });
}

/**
 * Builds the admin server and listens on `HOST`:`PORT` (see `parseApiConfig`): OpenAPI at
 * `/api/docs`, CORS closed unless `CORS_ORIGINS` lists origins, shutdown hooks on (SIGTERM drains
 * requests, then compaction, then connections).
 * @throws ConfigValidationError listing every bad variable; what the backend throws when unreachable.
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const config = parseApiConfig(options.env ?? process.env);
  const token =
    config.adminToken === null && config.namedTokens.length > 0
      ? null
      : new AdminToken(config.adminToken);
  const tokens = new AdminTokens(config.namedTokens, token);
  const adminDistDir = options.adminDistDir ?? ADMIN_DIST_DIR;
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({
      config,
      tokens,
      adminDistDir,
      metrics: new MemoryMetrics(),
    }),
    { logger: options.logger ?? serverLogger(config), bodyParser: false, abortOnError: false },
  );
  // Order matters: headers on every answer, CORS preflights answered, then the token checked
  // before any body is read or any route matched.
  app.disable('x-powered-by');
  // The dashboard's inline early-load script is allowed by its hash.
  app.use(securityHeaders(dashboardScriptHashes(adminDistDir)));
  app.enableCors({ origin: config.corsOrigins.length > 0 ? config.corsOrigins : false });
  const audit = app.get(AuditRecorder);
  app.use(
    adminAuthGate(tokens, app.get(FailedAuthLimiter), {
      protectedPrefixes: ['/api', '/metrics', MCP_PATH],
      openPrefixes: [...OPEN_API_PATHS],
      routes: app.get(RouteRoleTable),
      // Every change that reaches a route is audited, refused or not; reads are not. An MCP
      // request is audited per tool call that changes data (McpHttpService), not per POST.
      onRouteReached: (req, res, decision) => {
        if (isChangeMethod(req.method) && decision.route.pattern !== MCP_PATH) {
          audit.watch(req, res, decision);
        }
      },
    }),
  );
  // An import's media type is checked before the JSON parser could refuse its body as bad JSON.
  app.use(importMediaTypeGate());
  // Express's own JSON parser: Nest's `useBodyParser` keeps the `verify` hook for itself.
  app.use(json({ limit: MAX_BODY_SIZE, verify: verifyJsonBodyShape }));
  app.use(bodyParseErrors());
  app.enableShutdownHooks();
  // Node's own answers (a request body not received in time: a long import) in the API's shape.
  answerClientErrorsInApiShape(app.getHttpServer());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('agent-memory admin API')
      .setDescription('Sessions, messages, metadata and compaction of the conversation memory')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
  await app.listen(config.port, config.host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  return {
    app,
    config,
    token,
    tokens,
    url,
    dashboardUrl: token ? `${url}/?token=${encodeURIComponent(token.value)}` : `${url}/`,
  };
}
