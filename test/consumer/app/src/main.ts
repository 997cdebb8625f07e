import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  console.log(`listening on ${await app.getUrl()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
