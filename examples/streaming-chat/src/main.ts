/**
 * `LLM_BASE_URL=… LLM_MODEL=… npm run example:streaming`: a chat endpoint that streams.
 * `curl -N -X POST localhost:3002/chat/alice -H 'content-type: application/json'
 *   -d '{"message":{"id":"m1","role":"user","parts":[{"type":"text","text":"hi"}]}}'`
 * then `curl localhost:3002/chat/alice` for the stored chat.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  if (!process.env.LLM_BASE_URL || !process.env.LLM_MODEL) {
    throw new Error(
      'Set LLM_BASE_URL and LLM_MODEL (and LLM_API_KEY if the server needs one) to an ' +
        'OpenAI-compatible server, e.g. LLM_BASE_URL=http://localhost:11434/v1 LLM_MODEL=llama3.2',
    );
  }
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn', 'log'] });
  // SIGTERM stops compaction, then closes the memory backend.
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3002), process.env.HOST ?? '127.0.0.1');
  console.log(`Streaming chat listening on ${(await app.getUrl()).replace('[::1]', 'localhost')}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
