import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** Node's `requestTimeout` default: a request (body included) must arrive within 5 minutes. */
const NODE_REQUEST_TIMEOUT_MS = 300_000;

/**
 * Answers the errors Node's HTTP server raises before a route runs in the API's error shape
 * (`{ statusCode, code, message }`) instead of Node's empty bodies: a request whose body is not
 * received within the server's `requestTimeout` (5 minutes by default; a long import) is 408
 * `REQUEST_TIMEOUT` saying what to do, headers too large 431, anything else 400 `BAD_REQUEST`.
 * An import cut off this way keeps the sessions it stored; sending the rest again completes it.
 */
export function answerClientErrorsInApiShape(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way cannot be replaced (Node's own answer checks the same).
    const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || started?.headersSent) {
      socket.destroy();
      return;
    }
    const [statusCode, code, message] = describe(error, server.requestTimeout);
    const body = JSON.stringify({ statusCode, code, message });
    socket.end(
      `HTTP/1.1 ${statusCode} ${code.replace(/_/g, ' ')}\r\n` +
        'Connection: close\r\n' +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

function describe(
  error: NodeJS.ErrnoException,
  requestTimeoutMs: number,
): [number, string, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const seconds = (requestTimeoutMs || NODE_REQUEST_TIMEOUT_MS) / 1000;
    return [
      408,
      'REQUEST_TIMEOUT',
      `the request was not received within ${seconds} s; an import that long keeps the ` +
        'sessions it stored: split the file, or use "agent-memory import", and send the rest again',
    ];
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return [431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 'the request headers are too large'];
  }
  return [400, 'BAD_REQUEST', 'the request is not valid HTTP'];
}
