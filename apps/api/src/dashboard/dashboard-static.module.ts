import { DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Express } from 'express';
import type { ServerResponse } from 'node:http';
import expressStaticGzip from 'express-static-gzip';
import { join } from 'node:path';

const DASHBOARD_ROOT = Symbol('DASHBOARD_ROOT');

/** Paths that belong to the server, never to the dashboard's client-side pages. */
const SERVER_PATHS = /^\/(api|health|metrics)(\/|$)/;

/** One year: the build's `assets/` files carry a content hash in their names. */
const ASSET_MAX_AGE_S = 31_536_000;

function cacheHeaders(res: ServerResponse, path: string): void {
  res.setHeader(
    'cache-control',
    /[\\/]assets[\\/]/.test(path) ? `public, max-age=${ASSET_MAX_AGE_S}, immutable` : 'no-cache',
  );
}

/**
 * Serves the dashboard's build at `/`: its files (hashed assets cached for a year, `index.html`
 * revalidated; the build's precompressed `.br` / `.gz` twins when the browser accepts them), and
 * `index.html` for any other GET outside `/api`, `/health` and `/metrics`.
 * Registered after the API's routes and without an error handler of its own, so API errors (a
 * malformed JSON body included) still reach the API's exception filter; `@nestjs/serve-static`
 * turns any error on an excluded path into a 404.
 */
@Module({})
export class DashboardStaticModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(DASHBOARD_ROOT) private readonly root: string,
  ) {}

  /** @param root the build folder holding `index.html` (`apps/admin/dist`). */
  static forRoot(root: string): DynamicModule {
    return {
      module: DashboardStaticModule,
      providers: [{ provide: DASHBOARD_ROOT, useValue: root }],
    };
  }

  onModuleInit(): void {
    const app = this.adapterHost.httpAdapter.getInstance<Express>();
    const index = join(this.root, 'index.html');
    const staticFiles = expressStaticGzip(this.root, {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      serveStatic: { setHeaders: cacheHeaders },
    });
    app.use((req, res, next) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || SERVER_PATHS.test(req.path)) {
        return next();
      }
      return staticFiles(req, res, () => {
        cacheHeaders(res, index);
        res.sendFile(index, (error) => (error ? next(error) : undefined));
      });
    });
  }
}
