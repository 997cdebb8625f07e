import { jsonFileBackend, MemoryExceptionFilter, MemoryModule } from '@agent-memory/memory';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

@Module({ imports: [MemoryModule.forRoot({ backend: () => jsonFileBackend({ dir: './data' }) })] })
class AppModule {}

const app = await NestFactory.create(AppModule);
app.useGlobalFilters(new MemoryExceptionFilter()); // or { provide: APP_FILTER, useClass: MemoryExceptionFilter }
await app.listen(3000);

export {};
