import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientErrorsInApiShape } from './client-error.responder';

/** Sends `head` (and never finishes the body) on a raw socket; resolves with all it received. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('answerClientErrorsInApiShape', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    // A short request timeout, checked often: the same path a 5-minute import takes.
    // Like the import, the handler answers once it has read the whole body.
    server = createServer({ requestTimeout: 300, connectionsCheckingInterval: 50 }, (req, res) => {
      req.resume();
      req.on('end', () => res.end('read it all'));
    });
    answerClientErrorsInApiShape(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('answers a body not received in time with 408 in the API error shape, saying what to do', async () => {
    const answer = await rawRequest(
      port,
      'POST /api/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: 1000\r\n\r\n{"id"',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({ statusCode: 408, code: 'REQUEST_TIMEOUT' });
    expect(body.message).toContain('not received within 0.3 s');
    expect(body.message).toContain('agent-memory import');
  });

  it('answers a request that is not HTTP with 400 in the same shape', async () => {
    const answer = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});
