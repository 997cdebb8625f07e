import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleLogger, Injectable, Logger, Module, type LoggerService } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { natsBackend } from '@agent-memory/memory/nats';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { assistantMessage, userMessage } from '../core/message';
import { jsonFileBackend } from '../jsonfile';
import { simpleBackend } from '../simple';
import { CompactionService } from './compaction.service';
import { MEMORY_BACKEND } from './memory.injection';
import type { MemoryModuleOptions, MemoryOptionsFactory } from './memory-module-options.interface';
import { MemoryModule } from './memory.module';
import { MemoryService } from './memory.service';

describe('MemoryModule', () => {
  let dir: string;
  const buckets = new TestBuckets('nestmod');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memory-module-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(() => buckets.cleanup());

  it('forRoot provides MemoryService, CompactionService and the backend it was given', async () => {
    const backend = jsonFileBackend({ dir });
    const moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({ backend, compaction: { thresholdTokens: 500, keepRecent: 2 } }),
      ],
    }).compile();
    const memory = moduleRef.get(MemoryService);
    expect(memory.backend).toBe(backend);
    expect(moduleRef.get(MEMORY_BACKEND)).toBe(backend);
    expect(moduleRef.get(CompactionService).thresholdTokens).toBe(500);
    const session = await memory.session('mod.one');
    await session.save([userMessage('hi')]);
    expect(await (await jsonFileBackend({ dir }).open('mod.one')).retrieve()).toEqual([
      userMessage('hi'),
    ]);
    await moduleRef.close();
  });

  it('forRootAsync with useFactory reads a ConfigService and awaits a backend promise', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot({
          ignoreEnvFile: true,
          load: [() => ({ MEMORY_DIR: dir, COMPACT_AT_TOKENS: '1234' })],
        }),
        MemoryModule.forRootAsync({
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (config: ConfigService): MemoryModuleOptions => ({
            backend: Promise.resolve(
              jsonFileBackend({ dir: config.getOrThrow<string>('MEMORY_DIR') }),
            ),
            compaction: { thresholdTokens: Number(config.getOrThrow('COMPACT_AT_TOKENS')) },
          }),
        }),
      ],
    }).compile();
    expect(moduleRef.get(MemoryService).backend.kind).toBe('jsonfile');
    expect(moduleRef.get(CompactionService).thresholdTokens).toBe(1234);
    expect(moduleRef.get(CompactionService).keepRecent).toBe(20);
    await moduleRef.close();
  });

  it('forRootAsync with useClass, and isGlobal reaches modules that do not import it', async () => {
    @Injectable()
    class MemoryConfig implements MemoryOptionsFactory {
      createMemoryOptions(): MemoryModuleOptions {
        return { backend: simpleBackend({ capacity: 10 }) };
      }
    }
    @Injectable()
    class Consumer {
      constructor(readonly memory: MemoryService) {}
    }
    @Module({ providers: [Consumer], exports: [Consumer] })
    class FeatureModule {}

    const moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRootAsync({ useClass: MemoryConfig, isGlobal: true }),
        FeatureModule,
      ],
    }).compile();
    expect(moduleRef.get(Consumer).memory.backend.kind).toBe('simple');
    expect(moduleRef.get(CompactionService).thresholdTokens).toBe(150000);
    await moduleRef.close();
  });

  it('forRootAsync with useExisting reuses an options factory another module provides', async () => {
    @Injectable()
    class SharedMemoryConfig implements MemoryOptionsFactory {
      createMemoryOptions(): MemoryModuleOptions {
        return { backend: simpleBackend({ capacity: 5 }), compaction: { keepRecent: 3 } };
      }
    }
    @Module({ providers: [SharedMemoryConfig], exports: [SharedMemoryConfig] })
    class SettingsModule {}

    const moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRootAsync({ imports: [SettingsModule], useExisting: SharedMemoryConfig }),
      ],
    }).compile();
    expect(moduleRef.get(MemoryService).backend.kind).toBe('simple');
    expect(moduleRef.get(CompactionService).keepRecent).toBe(3);
    await moduleRef.close();
  });

  it('closes the backend when the app closes', async () => {
    const backend = await natsBackend({ servers: testNatsUrl(), bucket: buckets.next() });
    const app = await Test.createTestingModule({
      imports: [MemoryModule.forRoot({ backend })],
    }).compile();
    await app.init();
    await (
      await app.get(MemoryService).session('closing')
    ).save([userMessage('x'), assistantMessage('y')]);
    expect(backend.connection.isClosed()).toBe(false);
    await app.close();
    await backend.connection.closed();
    expect(backend.connection.isClosed()).toBe(true);
  });

  it('logs a backend close() that fails, and shutdown still completes after compaction stopped once', async () => {
    const events: string[] = [];
    const errors: string[] = [];
    const logger: LoggerService = {
      log: () => undefined,
      warn: () => undefined,
      error: (message: unknown) => void errors.push(String(message)),
    };
    const backend = simpleBackend({ capacity: 10 });
    backend.close = async () => {
      events.push('backend.close');
      throw new Error('disk unplugged');
    };
    const app = await Test.createTestingModule({
      imports: [MemoryModule.forRoot({ backend }), MemoryModule.forRoot({ name: 'b', backend })],
    })
      .setLogger(logger)
      .compile();
    await app.init();
    const compaction = app.get(CompactionService);
    const stop = compaction.shutdown.bind(compaction);
    compaction.shutdown = () => {
      events.push('compaction.shutdown');
      return stop();
    };
    try {
      await expect(app.close()).resolves.toBeUndefined();
    } finally {
      Logger.overrideLogger(new ConsoleLogger());
    }
    expect(events.filter((event) => event === 'compaction.shutdown')).toHaveLength(1);
    expect(events.indexOf('compaction.shutdown')).toBeLessThan(events.indexOf('backend.close'));
    expect(events.filter((event) => event === 'backend.close')).toHaveLength(2);
    expect(
      errors.filter((message) => /closing the backend .* failed: disk unplugged/.test(message)),
    ).toHaveLength(2);
    expect(compaction.isShuttingDown).toBe(true);
  });

  it.each([
    [{ backend: undefined }, TypeError, /needs a "backend"/],
    [
      { backend: { kind: 'simple' } },
      TypeError,
      /missing open, list, inspect, delete, check, close/,
    ],
    [
      { backend: simpleBackend({ capacity: 1 }), compaction: { thresholdTokens: 0 } },
      RangeError,
      /compaction\.thresholdTokens/,
    ],
    [
      { backend: simpleBackend({ capacity: 1 }), compaction: { keepRecent: -1 } },
      RangeError,
      /compaction\.keepRecent/,
    ],
    [
      { backend: simpleBackend({ capacity: 1 }), compaction: { mode: 'kafka' } },
      TypeError,
      /compaction\.mode/,
    ],
    [
      { backend: simpleBackend({ capacity: 1 }), compaction: { mode: 'nats' } },
      TypeError,
      /compaction\.nats\.servers/,
    ],
  ])('refuses bad options at start-up: %#', async (options, type, message) => {
    const building = Test.createTestingModule({
      imports: [MemoryModule.forRoot(options as unknown as MemoryModuleOptions)],
    }).compile();
    await expect(building).rejects.toThrow(type);
    await expect(
      Test.createTestingModule({
        imports: [MemoryModule.forRoot(options as unknown as MemoryModuleOptions)],
      }).compile(),
    ).rejects.toThrow(message);
  });
});
