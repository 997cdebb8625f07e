import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers one request: a status and a JSON body. */
export type Route = (url: URL, request: IncomingMessage) => { status?: number; body: unknown };

/**
 * A real local HTTP server answering the admin API's paths from fixture routes, for component
 * tests that exercise the fetch client, TanStack Query and polling end to end. Records requests.
 */
export interface FixtureServer {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startFixtureServer(routes: Record<string, Route>): Promise<FixtureServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const route = routes[`${request.method} ${url.pathname}`];
    const answer = route
      ? route(url, request)
      : {
          status: 404,
          body: { statusCode: 404, code: 'NOT_FOUND', message: `no route ${url.pathname}` },
        };
    response.writeHead(answer.status ?? 200, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      'access-control-allow-headers': '*',
      'access-control-allow-methods': '*',
    });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
