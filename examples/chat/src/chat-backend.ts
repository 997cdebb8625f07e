import { jsonFileBackend, simpleBackend, type MemoryBackend } from '@agent-memory/memory';
import type { ChatBackendKind } from './chat-options';

/**
 * The chosen store, configured from the same environment variables as the admin server. The
 * optional backends are imported on demand, so `--backend jsonfile` never loads `pg` or `nats`.
 */
export async function createChatBackend(
  kind: ChatBackendKind,
  env: NodeJS.ProcessEnv,
): Promise<MemoryBackend> {
  switch (kind) {
    case 'simple':
      return simpleBackend({ capacity: 1000 });
    case 'jsonfile':
      return jsonFileBackend({ dir: env.MEMORY_DIR ?? './data/chat' });
    case 'postgres': {
      const { postgresBackend } = await import('@agent-memory/memory/postgres');
      return postgresBackend({
        url: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        table: env.MEMORY_PG_TABLE,
      });
    }
    case 'nats': {
      const { natsBackend } = await import('@agent-memory/memory/nats');
      return natsBackend({
        servers: env.NATS_URL ?? 'nats://127.0.0.1:4222',
        bucket: env.MEMORY_NATS_BUCKET ?? 'agent-memory-chat',
      });
    }
  }
}
