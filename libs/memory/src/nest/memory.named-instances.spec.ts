import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { HealthCheckService } from '@nestjs/terminus';
import { postgresBackend, type PostgresBackend } from '@agent-memory/memory/postgres';
import {
  InjectMemoryHealth,
  MemoryBackendHealthIndicator,
  MemoryHealthModule,
} from '@agent-memory/memory/health';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import type { MemoryBackend } from '../core/backend.interface';
import { assistantMessage, userMessage } from '../core/message';
import { jsonFileBackend } from '../jsonfile';
import { simpleBackend } from '../simple';
import { CompactionService } from './compaction.service';
import { MEMORY_BACKEND } from './memory.injection';
import { InjectCompaction, InjectMemory, InjectMemoryBackend } from './memory.decorators';
import { MemoryModule } from './memory.module';
import { MemoryService } from './memory.service';
import { getMemoryBackendToken, getMemoryToken } from './memory.injection';

/** A user's service with both memories injected, the way the README shows. */
@Injectable()
class Conversations {
  constructor(
    readonly chat: MemoryService,
    readonly chatCompaction: CompactionService,
    @InjectMemory('archive') readonly archive: MemoryService,
    @InjectMemoryBackend('archive') readonly archiveBackend: MemoryBackend,
    @InjectCompaction('archive') readonly archiveCompaction: CompactionService,
  ) {}
}

async function turn(memory: MemoryService, sessionId: string, text: string): Promise<string> {
  const { compaction } = await memory.runTurn(sessionId, userMessage(text), async () => ({
    answer: 'ok',
    messages: [assistantMessage(`answer to ${text}`)],
  }));
  return compaction!.jobId;
}

describe('MemoryModule: named instances and backend factories', () => {
  const schemas = new TestSchemas('named');
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memory-named-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(() => schemas.cleanup());

  it('two instances on different backends: each injected where named, each compacting its own sessions, both closed', async () => {
    const table = schemas.nextTable();
    let archiveBackend: PostgresBackend | null = null;
    const app = await Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({
          backend: () => jsonFileBackend({ dir }),
          compaction: { thresholdTokens: 1, keepRecent: 1 },
        }),
        MemoryModule.forRootAsync({
          name: 'archive',
          useFactory: () => ({
            backend: async () =>
              (archiveBackend = await postgresBackend({ url: schemas.url, table })),
            compaction: { thresholdTokens: 1, keepRecent: 2 },
          }),
        }),
      ],
      providers: [Conversations],
    }).compile();
    await app.init();

    const users = app.get(Conversations);
    expect(users.chat.backend.kind).toBe('jsonfile');
    expect(users.archive.backend.kind).toBe('postgres');
    // (identity checked with ===: printing a TypeORM DataSource in a failure message throws)
    expect(users.archiveBackend === archiveBackend).toBe(true);
    expect(app.get(getMemoryToken('archive')) === users.archive).toBe(true);
    expect(app.get(getMemoryBackendToken('archive')) === archiveBackend).toBe(true);
    // A lookup by the default tokens anywhere in the app finds the default instance.
    expect(app.get(MemoryService) === users.chat).toBe(true);
    expect(app.get(MEMORY_BACKEND) === users.chat.backend).toBe(true);
    expect(app.get(CompactionService).keepRecent).toBe(1);
    expect(users.archiveCompaction.keepRecent).toBe(2);

    // Turns long enough that a summary of them makes the context smaller (else nothing is saved).
    for (const text of [
      'Please book the team dinner for Friday at eight. We are twelve people and two of us are vegetarian, so ask the restaurant for a set menu with a vegetarian option and a table away from the door.',
      'Also reserve the meeting room at the office for Thursday morning from nine to twelve. We need the projector, the big whiteboard and coffee for twelve people, and the room should be set up before half past eight.',
    ]) {
      await users.chatCompaction.wait(await turn(users.chat, 'chat.s', text));
      await users.archiveCompaction.wait(await turn(users.archive, 'archive.s', text));
    }
    const chatState = await (await users.chat.session('chat.s')).loadSnapshot();
    const archiveState = await (await users.archive.session('archive.s')).loadSnapshot();
    expect(chatState.snapshot).not.toBeNull();
    expect(chatState.tail).toHaveLength(1);
    expect(archiveState.snapshot).not.toBeNull();
    expect(archiveState.tail).toHaveLength(2);
    // Each session lives in its own instance's backend only.
    expect((await users.chat.backend.list({})).items.map((s) => s.id)).toEqual(['chat.s']);
    expect((await users.archive.backend.list({})).items.map((s) => s.id)).toEqual(['archive.s']);

    await app.close();
    await expect(archiveBackend!.check()).rejects.toThrow();
  });

  it('calls a backend factory at start-up, not when forRoot is called', async () => {
    let calls = 0;
    const dynamicModule = MemoryModule.forRoot({
      backend: () => {
        calls += 1;
        return simpleBackend({ capacity: 10 });
      },
    });
    expect(calls).toBe(0);
    const app = await Test.createTestingModule({ imports: [dynamicModule] }).compile();
    expect(calls).toBe(1);
    expect(app.get(MemoryService).backend.kind).toBe('simple');
    await app.close();
  });

  it('fails start-up with the error of a backend factory that rejects', async () => {
    const dynamicModule = MemoryModule.forRoot({
      backend: () => Promise.reject(new Error('database is down (factory)')),
    });
    await expect(Test.createTestingModule({ imports: [dynamicModule] }).compile()).rejects.toThrow(
      'database is down (factory)',
    );
  });

  it('a backend promise that rejects before start-up fails start-up, not the process', () => {
    // Its own process: jest would hide an unhandled rejection, which Node turns into a crash.
    const script = `
      require('reflect-metadata');
      const { NestFactory } = require('@nestjs/core');
      const { MemoryModule } = require('./libs/memory/src/index.ts');
      const dynamicModule = MemoryModule.forRoot({
        backend: Promise.reject(new Error('database is down (promise)')),
      });
      setTimeout(() => {
        NestFactory.createApplicationContext(dynamicModule, { logger: false, abortOnError: false }).then(
          () => console.log('started'),
          (error) => console.log('start-up failed: ' + error.message),
        );
      }, 100);`;
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
      cwd: join(__dirname, '../../../..'),
      encoding: 'utf8',
    });
    expect({ status: run.status, stdout: run.stdout.trim() }).toEqual({
      status: 0,
      stdout: 'start-up failed: database is down (promise)',
    });
  }, 30_000);

  it('MemoryHealthModule gives each instance the indicator of its backend', async () => {
    const table = schemas.nextTable();
    @Injectable()
    class HealthController {
      constructor(
        readonly health: HealthCheckService,
        readonly memory: MemoryBackendHealthIndicator,
        @InjectMemoryHealth('archive') readonly archive: MemoryBackendHealthIndicator,
        @InjectMemoryHealth('missing') readonly missing: MemoryBackendHealthIndicator,
      ) {}
    }
    @Module({
      imports: [
        MemoryHealthModule.forFeature(),
        MemoryHealthModule.forFeature({ name: 'archive' }),
        MemoryHealthModule.forFeature({ name: 'missing' }),
      ],
      providers: [HealthController],
    })
    class HealthModule {}

    const app = await Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({ backend: () => jsonFileBackend({ dir }) }),
        MemoryModule.forRoot({
          name: 'archive',
          backend: () => postgresBackend({ url: schemas.url, table }),
        }),
        HealthModule,
      ],
    }).compile();
    await app.init();
    const controller = app.get(HealthController);
    expect(await controller.memory.isHealthy()).toEqual({
      memory: { status: 'up', kind: 'jsonfile' },
    });
    // The PostgreSQL indicator: the database answers and the tables are in place.
    expect(await controller.archive.isHealthy('archive')).toMatchObject({
      archive: { status: 'up', table },
    });
    expect(await controller.missing.isHealthy('missing')).toMatchObject({
      missing: { status: 'down', message: expect.stringContaining('"missing"') },
    });
    const result = await controller.health.check([() => controller.archive.isHealthy('archive')]);
    expect(result.status).toBe('ok');
    await app.close();
  });
});
