import type { MemoryBackend } from '../core/backend.interface';
import type { CheckpointStorage } from '../core/checkpoint-storage.interface';

/**
 * Where `backend`'s store keeps LangGraph checkpoints: the one place that knows each store's
 * checkpoint storage. A decorated backend (`instrumentBackend`, `withRecall`) passes the concrete
 * store's properties through, so it is reached the same way. Each store's code is loaded only for
 * its kind, so the PostgreSQL and NATS clients stay optional.
 * @throws TypeError for a backend of a kind that keeps no checkpoints.
 */
export async function checkpointStorageFor(backend: MemoryBackend): Promise<CheckpointStorage> {
  switch (backend.kind) {
    case 'simple':
      return (backend as import('../simple/simple.backend').SimpleBackend).checkpointStorage;
    case 'jsonfile': {
      const { JsonFileCheckpointStorage } =
        await import('../jsonfile/json-file-checkpoint.storage');
      const { dir } = backend as import('../jsonfile/json-file.backend').JsonFileBackend;
      return new JsonFileCheckpointStorage(dir);
    }
    case 'postgres': {
      const { PostgresCheckpointStorage } = await import('../postgres/postgres-checkpoint.storage');
      const { dataSource, tables } =
        backend as import('../postgres/postgres.backend').PostgresBackend;
      return new PostgresCheckpointStorage(dataSource, tables);
    }
    case 'nats': {
      const { NatsCheckpointStorage } = await import('../nats/nats-checkpoint.storage');
      const { kv, connection } = backend as import('../nats/nats.backend').NatsBackend;
      return new NatsCheckpointStorage(kv, connection.info?.max_payload);
    }
    default:
      throw new TypeError(
        `MemoryCheckpointSaver: a ${String((backend as { kind?: unknown }).kind)} backend keeps no checkpoints`,
      );
  }
}
