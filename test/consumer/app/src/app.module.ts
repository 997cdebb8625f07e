/**
 * A Nest app written the way the README tells a user to: the package is imported by name only,
 * the backend comes from a factory (nothing connects at import time), the health indicator from
 * `MemoryHealthModule`. `MEMORY_BACKEND` names the store's driver (`jsonfile` with MEMORY_DIR,
 * `postgres` with DATABASE_URL and MEMORY_PG_TABLE, …), which reads its own variables.
 */
import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import {
  assistantMessage,
  BUILT_IN_DRIVERS,
  MemoryModule,
  MemoryService,
  requireDriver,
  SettingsReader,
  userMessage,
  type MemoryBackend,
  type Message,
} from '@agent-memory/memory';
import { MemoryBackendHealthIndicator, MemoryHealthModule } from '@agent-memory/memory/health';
import { toChatCompletionMessages, type ChatCompletionMessage } from '@agent-memory/memory/openai';

/** The store `MEMORY_BACKEND` names (default `jsonfile`), built by its driver from its variables. */
async function backendFromEnv(): Promise<MemoryBackend> {
  const driver = requireDriver(BUILT_IN_DRIVERS, process.env.MEMORY_BACKEND ?? 'jsonfile');
  const reader = new SettingsReader(process.env);
  const settings = driver.readSettings(reader);
  if (reader.problems.length > 0) throw new Error(reader.problems.join('; '));
  return driver.create(settings);
}

@Controller('chat')
export class ChatController {
  constructor(private readonly memory: MemoryService) {}

  @Post(':sessionId')
  async turn(
    @Param('sessionId') sessionId: string,
    @Body() body: { text: string },
  ): Promise<{ answer: string; historyLength: number }> {
    const { answer } = await this.memory.runTurn(
      sessionId,
      userMessage(body.text),
      async ({ history }) => ({
        answer: `heard ${history.length} earlier messages`,
        messages: [assistantMessage(`echo: ${body.text}`)],
      }),
    );
    const stored = await (await this.memory.session(sessionId)).retrieve();
    return { answer, historyLength: stored.length };
  }

  /** The session as an OpenAI Chat Completions request's `messages` (the `/openai` adapter). */
  @Get(':sessionId/chat-completions')
  async asChatCompletions(@Param('sessionId') sessionId: string): Promise<ChatCompletionMessage[]> {
    return toChatCompletionMessages(await (await this.memory.session(sessionId)).retrieve());
  }

  @Get(':sessionId')
  async history(@Param('sessionId') sessionId: string): Promise<Message[]> {
    return (await this.memory.session(sessionId)).retrieve();
  }
}

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly memory: MemoryBackendHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.memory.isHealthy('memory')]);
  }
}

@Module({
  imports: [
    MemoryModule.forRoot({ backend: backendFromEnv, compaction: { thresholdTokens: 100_000 } }),
    MemoryHealthModule.forFeature(),
  ],
  controllers: [ChatController, HealthController],
})
export class AppModule {}
