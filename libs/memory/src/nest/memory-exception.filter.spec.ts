/**
 * `MemoryExceptionFilter` in an app like a user's (Express, real HTTP, real stores): the library's
 * errors reach the client with their status and stable code, not as Nest's generic 500.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Body,
  ConsoleLogger,
  Controller,
  Get,
  Module,
  Param,
  Post,
  type INestApplication,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  jsonFileBackend,
  MemoryExceptionFilter,
  MemoryModule,
  MemoryService,
  userMessage,
  type MemoryBackend,
} from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { TestSchemas } from '@agent-memory/test-support/postgres';

@Controller('sessions')
class ChatController {
  constructor(private readonly memory: MemoryService) {}

  @Post(':id/messages')
  async append(@Param('id') id: string, @Body() body: { text: string }) {
    const session = await this.memory.session(id);
    return session.save([userMessage(body.text)]);
  }

  /** Adds a message and saves a snapshot as if no other existed: the second call conflicts. */
  @Post(':id/snapshot')
  async snapshot(@Param('id') id: string) {
    const session = await this.memory.session(id);
    await session.save([userMessage('more')]);
    const { tail } = await session.loadSnapshot();
    return session.saveSnapshot({ summary: 'so far' }, tail[tail.length - 1]!.cursor, null);
  }

  @Get('boom')
  boom(): never {
    throw new Error('not a memory error');
  }
}

/** Nest's console logger keeping each error line (message, context, stack) instead of printing it. */
class RecordingLogger extends ConsoleLogger {
  readonly errors: string[] = [];

  override error(message: unknown, ...rest: unknown[]): void {
    this.errors.push([message, ...rest].map(String).join('\n'));
  }

  override log(): void {}
}

async function startApp(
  backend: MemoryBackend,
  logger = new RecordingLogger(),
): Promise<{ app: INestApplication; url: string }> {
  @Module({ imports: [MemoryModule.forRoot({ backend })], controllers: [ChatController] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger });
  app.useGlobalFilters(new MemoryExceptionFilter());
  await app.listen(0, '127.0.0.1');
  return { app, url: await app.getUrl() };
}

const post = (url: string, json: unknown = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });

describe('MemoryExceptionFilter in a Nest app', () => {
  const schemas = new TestSchemas('filter');
  let dir: string;
  let app: INestApplication | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memory-filter-'));
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  afterAll(() => schemas.cleanup());

  it('answers a session too large with 413, a snapshot conflict with 409, a bad id with 400', async () => {
    const logger = new RecordingLogger();
    const started = await startApp(jsonFileBackend({ dir, maxSessionBytes: 2048 }), logger);
    app = started.app;
    const ok = await post(`${started.url}/sessions/chat/messages`, { text: 'hello' });
    expect(ok.status).toBe(201);

    const tooLarge = await post(`${started.url}/sessions/chat/messages`, {
      text: 'x'.repeat(4096),
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ statusCode: 413, code: 'SESSION_TOO_LARGE' });

    expect((await post(`${started.url}/sessions/chat/snapshot`)).status).toBe(201);
    const conflict = await post(`${started.url}/sessions/chat/snapshot`);
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ statusCode: 409, code: 'SNAPSHOT_CONFLICT' });

    const badId = await post(`${started.url}/sessions/${'a'.repeat(300)}/messages`, { text: 'x' });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ code: 'INVALID_SESSION_ID' });

    // Other errors stay Nest's.
    const boom = await fetch(`${started.url}/sessions/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ statusCode: 500, message: 'Internal server error' });
    // Only the server error is logged (by Nest's own filter), not the client errors.
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]).toContain('not a memory error');
  });

  it('answers a write to an unmigrated PostgreSQL table with 503 and a stable code, and logs why', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ url: schemas.url, table, ensureSchema: false });
    const logger = new RecordingLogger();
    const started = await startApp(backend, logger);
    app = started.app;
    const write = await post(`${started.url}/sessions/chat/messages`, { text: 'hello' });
    const body = (await write.json()) as { statusCode: number; code: string; message: string };
    expect({ status: write.status, ...body }).toEqual({
      status: 503,
      statusCode: 503,
      code: 'BACKEND_UNAVAILABLE',
      message: 'the memory backend is unavailable; retry when it is back',
    });

    // The log says what the reply must not: the driver's error naming what is missing, and where.
    expect(logger.errors).toHaveLength(1);
    const [logged] = logger.errors;
    expect(logged).toMatch(
      /^BACKEND_UNAVAILABLE: PostgreSQL request failed: save of session "chat"/,
    );
    expect(logged).toMatch(/caused by DatabaseError: relation ".*" does not exist\n/);
    expect(logged).toContain('MemoryExceptionFilter');
    expect(logged).toMatch(/\n\s+at /); // the stack
    await backend.close();
  });
});
