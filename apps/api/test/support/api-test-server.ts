/**
 * The admin server on a real port for e2e tests (`PORT=0`), one per backend kind, each with its
 * own data (temp folder, NATS bucket, Postgres table), and a small `fetch` client for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendKind } from '@agent-memory/memory';
import { startApiServer, type ApiServer } from '../../src/api.server';
import { testDatabaseUrl, testNatsUrl } from '../../../../test/support/services';
import { TestBuckets } from '../../../../test/support/nats';
import { TestSchemas } from '../../../../test/support/postgres';

export const TEST_ADMIN_TOKEN = 'e2e-admin-token-0123456789';

export interface TestServer {
  server: ApiServer;
  /** `fetch` against the server; sends the admin token unless `token` is given (null: none). */
  request(
    path: string,
    init?: RequestInit & { token?: string | null; json?: unknown },
  ): Promise<Response>;
  /** Closes the server and removes its data. */
  dispose(): Promise<void>;
}

/** The environment that points a server at isolated data of one backend kind. */
export interface BackendEnv {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export function backendEnv(
  kind: BackendKind,
  overrides: { natsUrl?: string; databaseUrl?: string } = {},
): BackendEnv {
  switch (kind) {
    case 'simple':
      return { env: { MEMORY_BACKEND: 'simple' }, cleanup: async () => undefined };
    case 'jsonfile': {
      const dir = mkdtempSync(join(tmpdir(), 'agent-memory-api-'));
      return {
        env: { MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: join(dir, 'sessions') },
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    }
    case 'nats': {
      const url = overrides.natsUrl ?? testNatsUrl();
      const buckets = new TestBuckets('api_e2e', url);
      return {
        env: { MEMORY_BACKEND: 'nats', NATS_URL: url, MEMORY_NATS_BUCKET: buckets.next() },
        cleanup: () => buckets.cleanup(),
      };
    }
    case 'postgres': {
      const schemas = new TestSchemas('api_e2e', overrides.databaseUrl ?? testDatabaseUrl());
      return {
        env: {
          MEMORY_BACKEND: 'postgres',
          DATABASE_URL: schemas.url,
          MEMORY_PG_TABLE: schemas.nextTable(),
        },
        cleanup: () => schemas.cleanup().catch(() => undefined),
      };
    }
  }
}

export async function startTestServer(
  env: Record<string, string>,
  opts: { adminDistDir?: string } = {},
): Promise<TestServer> {
  const server = await startApiServer({
    env: { PORT: '0', MEMORY_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env },
    logger: process.env.API_TEST_LOG ? ['error', 'warn'] : false,
    adminDistDir: opts.adminDistDir,
  });
  return {
    server,
    request(path, init = {}) {
      const { token = TEST_ADMIN_TOKEN, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== null) headers.set('authorization', `Bearer ${token}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(`${server.url}${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    async dispose() {
      await server.app.close();
    },
  };
}
