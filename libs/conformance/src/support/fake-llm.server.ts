/**
 * A real, local OpenAI-compatible chat-completions server for tests: point an
 * `OpenAiCompatibleClient` at `baseUrl`, script its answers, and inspect what was sent.
 *
 * ```ts
 * const llm = await startFakeLlm();
 * afterAll(() => llm.close());
 * const client = new OpenAiCompatibleClient({ baseUrl: llm.baseUrl, apiKey: 'k', model: 'm' });
 * llm.reply('a summary');            // the next request gets this answer
 * llm.failNext(500, 'overloaded');   // the one after that gets an HTTP 500
 * expect(llm.requests[0].body.model).toBe('m');
 * ```
 *
 * A request with `stream: true` gets its answer as server-sent chunks, as the API streams.
 *
 * Scripted behaviours (`reply`, `replyWith`, `failNext`, `hangNext`, `replyRaw`) form one FIFO
 * queue: each request to `POST /v1/chat/completions` takes the oldest one. With the queue empty
 * the server answers with `defaultReply` (default: the text `'summary'`). Every server is its
 * own instance on its own port, so parallel test files do not share state.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message as the OpenAI chat-completions API carries it (loosely typed: tests inspect it). */
export interface FakeLlmWireMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

/** The parsed JSON body of a chat-completions request. */
export interface FakeLlmRequestBody {
  model: string;
  messages: FakeLlmWireMessage[];
  max_tokens?: number;
  [key: string]: unknown;
}

/** One request the server received on `POST /v1/chat/completions`, in arrival order. */
export interface FakeLlmRequest {
  body: FakeLlmRequestBody;
  /** Node's lower-cased headers, such as `headers.authorization`. */
  headers: IncomingHttpHeaders;
}

/** The assistant's text, or a function of the request body that returns it. */
export type FakeLlmContent = string | ((body: FakeLlmRequestBody) => string);

/** A tool call as the OpenAI API returns it. */
export interface FakeLlmToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Token usage as the OpenAI API reports it. */
export interface FakeLlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface FakeLlmOptions {
  /** The answer when nothing is queued. Default `'summary'`. */
  defaultReply?: FakeLlmContent;
}

/** A running fake server; see the file comment for the queue semantics. */
export interface FakeLlm {
  /** Such as `http://127.0.0.1:41234/v1`: pass it as the client's `baseUrl`. */
  readonly baseUrl: string;
  /** Every chat-completions request received, recorded as it arrives (before it is answered). */
  readonly requests: FakeLlmRequest[];
  /** Queues one answer with assistant text `content` (null content if `content` is `null`). */
  reply(content: FakeLlmContent | null): void;
  /**
   * Queues one answer with full control: text (default `null`), tool calls, finish reason
   * (default `'tool_calls'` with tool calls, else `'stop'`), and usage (default: computed).
   */
  replyWith(answer: {
    content?: FakeLlmContent | null;
    toolCalls?: FakeLlmToolCall[];
    finishReason?: string;
    usage?: FakeLlmUsage | null;
  }): void;
  /**
   * Queues one HTTP error: status `status` with OpenAI's error body
   * `{ error: { message, type, code: null } }`. `type` defaults to `'server_error'` for 5xx and
   * `'invalid_request_error'` otherwise.
   */
  failNext(status: number, message: string, type?: string): void;
  /** Queues one request that is received and recorded but never answered (until `close()`). */
  hangNext(): void;
  /**
   * Queues one request that is received and recorded, then answered with `content` only when the
   * returned `release()` is called (to observe what happens while an LLM call is in flight).
   */
  holdNext(content?: FakeLlmContent): { release(): void };
  /** Queues one answer whose body is `body` verbatim (for malformed responses). */
  replyRaw(body: string, status?: number, contentType?: string): void;
  /** Resolves once at least `count` requests have been received. */
  waitForRequests(count: number): Promise<void>;
  /** Stops the server and destroys every open socket, hung requests included. */
  close(): Promise<void>;
}

type Scripted =
  | {
      kind: 'answer';
      content: FakeLlmContent | null;
      toolCalls?: FakeLlmToolCall[];
      finishReason?: string;
      usage?: FakeLlmUsage | null;
    }
  | { kind: 'fail'; status: number; message: string; type: string }
  | { kind: 'hang' }
  | { kind: 'hold'; content: FakeLlmContent; released: Promise<void> }
  | { kind: 'raw'; status: number; body: string; contentType: string };

/**
 * Starts a fake OpenAI-compatible server on 127.0.0.1 at a free port.
 *
 * Usage in answers, unless given: `prompt_tokens` is the request's JSON `messages` length / 4 and
 * `completion_tokens` the answer text's length / 4, both rounded up (deterministic, not real
 * tokenization). Other paths answer 404 and an unparsable request body 400, both in OpenAI's
 * error shape.
 */
export async function startFakeLlm(opts: FakeLlmOptions = {}): Promise<FakeLlm> {
  const defaultReply = opts.defaultReply ?? 'summary';
  const queue: Scripted[] = [];
  const requests: FakeLlmRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let completionCounter = 0;

  const notifyWaiters = (): void => {
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        sendError(
          res,
          404,
          `no route for ${req.method ?? '?'} ${req.url ?? ''}`,
          'invalid_request_error',
        );
        return;
      }
      let body: FakeLlmRequestBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeLlmRequestBody;
      } catch {
        sendError(res, 400, 'request body is not valid JSON', 'invalid_request_error');
        return;
      }
      requests.push({ body, headers: req.headers });
      notifyWaiters();

      const next: Scripted = queue.shift() ?? { kind: 'answer', content: defaultReply };
      switch (next.kind) {
        case 'hang':
          return;
        case 'hold':
          void next.released.then(() => {
            const content = typeof next.content === 'function' ? next.content(body) : next.content;
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify({
                id: `chatcmpl-fake-${++completionCounter}`,
                object: 'chat.completion',
                created: Math.floor(Date.now() / 1000),
                model: body.model,
                choices: [
                  { index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' },
                ],
              }),
            );
          });
          return;
        case 'fail':
          sendError(res, next.status, next.message, next.type);
          return;
        case 'raw':
          res.writeHead(next.status, { 'content-type': next.contentType });
          res.end(next.body);
          return;
        case 'answer': {
          const content = typeof next.content === 'function' ? next.content(body) : next.content;
          const toolCalls =
            next.toolCalls && next.toolCalls.length > 0 ? next.toolCalls : undefined;
          const usage =
            next.usage === undefined
              ? {
                  prompt_tokens: Math.ceil(JSON.stringify(body.messages ?? []).length / 4),
                  completion_tokens: Math.ceil((content ?? '').length / 4),
                }
              : next.usage;
          const answer = {
            id: `chatcmpl-fake-${++completionCounter}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content,
                  ...(toolCalls ? { tool_calls: toolCalls } : {}),
                },
                finish_reason: next.finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
              },
            ],
            ...(usage
              ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }
              : {}),
          };
          if (body.stream === true) {
            sendStream(res, answer);
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer));
          return;
        }
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply(content) {
      queue.push({ kind: 'answer', content });
    },
    replyWith(answer) {
      queue.push({
        kind: 'answer',
        content: answer.content ?? null,
        toolCalls: answer.toolCalls,
        finishReason: answer.finishReason,
        usage: answer.usage,
      });
    },
    failNext(status, message, type) {
      queue.push({
        kind: 'fail',
        status,
        message,
        type: type ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
      });
    },
    hangNext() {
      queue.push({ kind: 'hang' });
    },
    holdNext(content = defaultReply) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      queue.push({ kind: 'hold', content, released });
      return { release };
    },
    replyRaw(body, status = 200, contentType = 'application/json') {
      queue.push({ kind: 'raw', status, body, contentType });
    },
    waitForRequests(count) {
      return new Promise<void>((resolve) => {
        waiters.push({ count, resolve });
        notifyWaiters();
      });
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/**
 * A scripted answer as a chat-completions stream (`stream: true`): server-sent events with the
 * role and text in one chunk, each tool call in one chunk, then the finish reason and usage.
 */
function sendStream(
  res: ServerResponse,
  answer: {
    id: string;
    created: number;
    model: string;
    choices: Array<{
      message: { content: string | null; tool_calls?: FakeLlmToolCall[] };
      finish_reason: string;
    }>;
    usage?: unknown;
  },
): void {
  const { message, finish_reason } = answer.choices[0]!;
  const chunk = (delta: unknown, finishReason: string | null = null, usage?: unknown): string =>
    `data: ${JSON.stringify({
      id: answer.id,
      object: 'chat.completion.chunk',
      created: answer.created,
      model: answer.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...(usage ? { usage } : {}),
    })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk({ role: 'assistant', content: message.content ?? '' }));
  (message.tool_calls ?? []).forEach((call, index) =>
    res.write(chunk({ tool_calls: [{ index, ...call }] })),
  );
  res.write(chunk({}, finish_reason, answer.usage));
  res.end('data: [DONE]\n\n');
}

function sendError(res: ServerResponse, status: number, message: string, type: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}
