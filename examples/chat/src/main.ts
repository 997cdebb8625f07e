/**
 * `npm run example:chat -- --backend jsonfile --session demo`: a terminal agent whose memory
 * outlives the process. Run it twice with the same `--session` to see it resume.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { chatModelFromEnv, NO_LLM_NOTICE } from './chat-model';
import { CHAT_USAGE, parseChatOptions } from './chat-options';
import { ChatModule } from './chat.module';
import { REPL_HELP, runRepl } from './chat.repl';
import { ChatService } from './chat.service';

async function main(): Promise<void> {
  const options = parseChatOptions(process.argv.slice(2));
  if (options.help) {
    console.log(CHAT_USAGE);
    return;
  }
  const model = chatModelFromEnv(process.env, options.echo);
  if (model.isEcho && !options.echo) console.log(NO_LLM_NOTICE);

  const app = await NestFactory.createApplicationContext(ChatModule.register(options, model), {
    logger: ['error', 'warn'],
  });
  try {
    const chat = app.get(ChatService);
    const info = await chat.info();
    console.log(`Backend ${options.backend}, model: ${model.description}.`);
    if (info && info.messages > 0) {
      const count = `${info.messages} message${info.messages === 1 ? '' : 's'} so far`;
      const compacted =
        info.snapshotUpTo != null
          ? `summarised up to #${info.snapshotUpTo}`
          : 'nothing summarised yet';
      console.log(`Resumed session ${chat.sessionId}: ${count}, ${compacted}.`);
    } else {
      console.log(`New session ${chat.sessionId}.`);
    }
    const interactive = Boolean(process.stdin.isTTY);
    if (interactive) console.log(REPL_HELP);
    await runRepl(chat, process.stdin, (line) => console.log(line), interactive);
  } finally {
    // Waits for a running compaction (up to its grace period), then closes the backend.
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
