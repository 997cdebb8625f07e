/**
 * A Nest app written the way the README tells a user to: the package is imported by name only,
 * the backend comes from a factory (nothing connects at import time), the health indicator from
 * `MemoryHealthModule`. `MEMORY_BACKEND_KIND` picks `jsonfile` (MEMORY_DIR) or `postgres`
 * (DATABASE_URL, MEMORY_PG_TABLE).
 */
import { Body, Controller, Get, Module, Param, Post } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import {
  assistantMessage,
  jsonFileBackend,
  MemoryModule,
  MemoryService,
  userMessage,
  type MemoryBackend,
  type Message,
} from '@agent-memory/memory';
import { MemoryBackendHealthIndicator, MemoryHealthModule } from '@agent-memory/memory/health';
import { toChatCompletionMessages, type ChatCompletionMessage } from '@agent-memory/memory/openai';
import { postgresBackend } from '@agent-memory/memory/postgres';

function backendFromEnv(): Promise<MemoryBackend> | MemoryBackend {
  if (process.env.MEMORY_BACKEND_KIND === 'postgres') {
    return postgresBackend({
      url: process.env.DATABASE_URL!,
      table: process.env.MEMORY_PG_TABLE,
    });
  }
  return jsonFileBackend({ dir: process.env.MEMORY_DIR! });
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
