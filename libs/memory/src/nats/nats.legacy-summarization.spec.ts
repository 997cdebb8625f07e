import { types } from 'node:util';
import {
  OpenAiCompatibleClient,
  SUMMARY_PREFIX,
  SnapshotsUnsupportedError,
  systemMessage,
  userMessage,
  type LlmClient,
  type Message,
} from '@agent-memory/memory';
import { NatsMemory, natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { conversation, texts } from '@agent-memory/conformance';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';

function chatClient(baseUrl: string): LlmClient {
  return new OpenAiCompatibleClient({ baseUrl, apiKey: 'test-key', model: 'test' });
}

/** The local LLM server: answers "summary <n>", after running `beforeAnswer`; `failWith` makes it fail. */
const llm = {
  requests: [] as { messages: { role: string; content: string }[] }[],
  beforeAnswer: null as (() => Promise<unknown>) | null,
  failWith: 0,
};

let server: Server;
let baseUrl: string;
const buckets = new TestBuckets('legacy');
const opened: NatsBackend[] = [];
let counter = 0;
const newId = () => `legacy-${process.pid}-${++counter}`;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', async () => {
      llm.requests.push(JSON.parse(body));
      const hook = llm.beforeAnswer;
      llm.beforeAnswer = null;
      if (hook) await hook();
      if (llm.failWith) {
        res.writeHead(llm.failWith).end('{"error":{"message":"overloaded"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: `summary ${llm.requests.length}` } }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await buckets.cleanup();
});
beforeEach(() => {
  llm.requests = [];
  llm.beforeAnswer = null;
  llm.failWith = 0;
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((b) => b.close()));
});

/** A replica on the same bucket without the option: another writer of the session. */
async function plainReplica(of: NatsBackend): Promise<NatsBackend> {
  const backend = await natsBackend({ servers: testNatsUrl(), bucket: of.bucket });
  opened.push(backend);
  return backend;
}

async function backendWithSummarization(errors: unknown[] = []): Promise<NatsBackend> {
  const backend = await natsBackend({
    servers: testNatsUrl(),
    bucket: buckets.next(),
    summarization: {
      llm: chatClient(baseUrl),
      threshold: 4,
      size: 2,
      onError: (e) => errors.push(e),
    },
  });
  opened.push(backend);
  return backend;
}

const summary = (n: number): Message => systemMessage(`${SUMMARY_PREFIX}summary ${n}`);

describe('NatsMemory with the deprecated summarization option', () => {
  it('replaces the oldest messages by a summary once the threshold is reached', async () => {
    const backend = await backendWithSummarization();
    const id = newId();
    const memory = await backend.open(id);
    await memory.save(conversation(3));
    expect(llm.requests).toHaveLength(0);
    await memory.save(conversation(1, 3));
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.messages.at(-1)!.content).toBe('user: u0\nassistant: a1');
    expect(await memory.retrieve()).toEqual([summary(1), ...conversation(2, 2)]);
    // The summary is the session's snapshot; the messages it covers are no longer stored.
    expect(await backend.inspect(id)).toMatchObject({ messages: 4, stored: 2, hasSnapshot: true });
    expect((await memory.loadSnapshot()).snapshot).toMatchObject({ summary: 'summary 1', upTo: 2 });
  });

  it('opens the store itself: a NatsMemory, no proxy around it', async () => {
    const memory = await (await backendWithSummarization()).open(newId());
    expect(memory).toBeInstanceOf(NatsMemory);
    expect(types.isProxy(memory)).toBe(false);
  });

  it('summarises the previous summary again with the next oldest messages', async () => {
    const backend = await backendWithSummarization();
    const memory = await backend.open(newId());
    await memory.save(conversation(4));
    await memory.save(conversation(2, 4));
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.messages.at(-1)!.content).toBe(
      `system: ${SUMMARY_PREFIX}summary 1\nuser: u2`,
    );
    expect(await memory.retrieve()).toEqual([summary(2), ...conversation(3, 3)]);
  });

  it('keeps a message another writer saved while the LLM was answering', async () => {
    const backend = await backendWithSummarization();
    const id = newId();
    const memory = await backend.open(id);
    const other = await (await plainReplica(backend)).open(id);
    await memory.save(conversation(3));
    llm.beforeAnswer = () => other.save([userMessage('meanwhile')]);
    await memory.save(conversation(1, 3));
    expect(await memory.retrieve()).toEqual([
      summary(1),
      ...conversation(2, 2),
      userMessage('meanwhile'),
    ]);
  });

  it('drops the rewrite when the summarised messages are gone by the time the LLM answers', async () => {
    const errors: unknown[] = [];
    const backend = await backendWithSummarization(errors);
    const id = newId();
    const memory = await backend.open(id);
    const other = await (await plainReplica(backend)).open(id);
    await memory.save(conversation(3));
    llm.beforeAnswer = async () => {
      await other.clear();
      await other.save([userMessage('new start')]);
    };
    await memory.save(conversation(1, 3));
    expect(texts(await memory.retrieve())).toEqual(['new start']);
    expect(errors).toEqual([]);
  });

  it('keeps a session cleared and refilled while the LLM was answering', async () => {
    const errors: unknown[] = [];
    const backend = await backendWithSummarization(errors);
    const id = newId();
    const memory = await backend.open(id);
    const other = await (await plainReplica(backend)).open(id);
    await memory.save(conversation(3));
    // The refill reuses the cursors the summary was planned on (they restart after a clear).
    llm.beforeAnswer = async () => {
      await other.clear();
      await other.save([userMessage('n0'), userMessage('n1'), userMessage('n2')]);
    };
    await memory.save(conversation(1, 3));
    expect(texts(await memory.retrieve())).toEqual(['n0', 'n1', 'n2']);
    expect((await memory.loadSnapshot()).snapshot).toBeNull();
    expect(errors).toEqual([]);
  });

  it('reports a failed LLM call to onError and keeps every saved message', async () => {
    const errors: unknown[] = [];
    const backend = await backendWithSummarization(errors);
    const memory = await backend.open(newId());
    llm.failWith = 503;
    await memory.save(conversation(4));
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/HTTP 503/);
    expect(await memory.retrieve()).toEqual(conversation(4));
    // The next save tries again.
    llm.failWith = 0;
    await memory.save(conversation(1, 4));
    expect(await memory.retrieve()).toEqual([summary(2), ...conversation(3, 2)]);
  });

  it('refuses snapshots', async () => {
    const backend = await backendWithSummarization();
    const memory = await backend.open(newId());
    await memory.save(conversation(2));
    await expect(memory.saveSnapshot({ summary: 's' }, 1, null)).rejects.toThrow(
      SnapshotsUnsupportedError,
    );
  });
});
