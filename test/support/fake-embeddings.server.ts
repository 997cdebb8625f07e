/**
 * A real, local OpenAI-compatible embeddings server for tests (`POST /v1/embeddings`): each input
 * gets a deterministic vector (the `HashedNgramEmbedder`'s, at the request's `dimensions` or
 * `defaultDimensions`), so answers are checkable. Script failures with `failNext(status)` (FIFO),
 * hold a request with `holdNext()`, and inspect `requests`.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashedNgramEmbedder } from '../../libs/memory/src/rag/hashed-ngram.embedder';

export interface FakeEmbeddingsRequest {
  body: { model: string; input: string[]; dimensions?: number; [key: string]: unknown };
  headers: IncomingHttpHeaders;
}

export interface FakeEmbeddings {
  /** Such as `http://127.0.0.1:41234/v1`. */
  readonly baseUrl: string;
  readonly requests: FakeEmbeddingsRequest[];
  /** The next request is answered with this HTTP status (and `Retry-After`, when given). */
  failNext(status: number, opts?: { retryAfterSeconds?: number; body?: string }): void;
  /** The next request is received but answered only by `release()` (or never: `close()` drops it). */
  holdNext(): { release(): void };
  /** The next request is answered with `body` as it is (status 200). */
  replyRawNext(body: string): void;
  close(): Promise<void>;
}

type Scripted =
  | { kind: 'fail'; status: number; retryAfterSeconds?: number; body?: string }
  | { kind: 'hold'; released: Promise<void> }
  | { kind: 'raw'; body: string };

/** Starts the server on 127.0.0.1 at a free port. */
export async function startFakeEmbeddings(defaultDimensions = 64): Promise<FakeEmbeddings> {
  const requests: FakeEmbeddingsRequest[] = [];
  const queue: Scripted[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const body = JSON.parse(
          Buffer.concat(chunks).toString('utf8'),
        ) as FakeEmbeddingsRequest['body'];
        requests.push({ body, headers: req.headers });
        const next = queue.shift();
        if (next?.kind === 'hold') await next.released;
        if (next?.kind === 'fail') {
          res.writeHead(next.status, {
            'content-type': 'application/json',
            ...(next.retryAfterSeconds !== undefined
              ? { 'retry-after': String(next.retryAfterSeconds) }
              : {}),
          });
          res.end(next.body ?? JSON.stringify({ error: { message: `scripted ${next.status}` } }));
          return;
        }
        if (next?.kind === 'raw') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(next.body);
          return;
        }
        const embedder = new HashedNgramEmbedder({
          dimensions: body.dimensions ?? defaultDimensions,
        });
        const vectors = await embedder.embed(body.input);
        // Answered in reverse order with explicit indexes, as servers may do.
        const data = vectors
          .map((embedding, index) => ({ object: 'embedding', index, embedding }))
          .reverse();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data, model: body.model }));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(status, opts = {}) {
      queue.push({ kind: 'fail', status, ...opts });
    },
    holdNext() {
      let release!: () => void;
      queue.push({ kind: 'hold', released: new Promise<void>((r) => (release = r)) });
      return { release: () => release() };
    },
    replyRawNext(body) {
      queue.push({ kind: 'raw', body });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
