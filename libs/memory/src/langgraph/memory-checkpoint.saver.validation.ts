/**
 * LangGraph's checkpointer suite on the saver over each store, with fresh storage for each
 * checkpointer it asks for (a new in-process backend, folder, PostgreSQL schema or NATS bucket).
 */
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryBackend } from '../core/backend.interface';
import { jsonFileBackend } from '../jsonfile/json-file.backend';
import { natsBackend } from '../nats/nats.backend';
import { postgresBackend } from '../postgres/postgres.backend';
import { simpleBackend } from '../simple/simple.backend';
import { MemoryCheckpointSaver } from './memory-checkpoint.saver';

const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const natsUrl = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const run = `${process.pid}_${Date.now().toString(36)}`;
let counter = 0;

/** An initializer whose every checkpointer sits on a fresh backend that is closed after. */
function initializer(
  name: string,
  openBackend: () => Promise<MemoryBackend>,
  cleanup?: () => Promise<void>,
) {
  const backends = new WeakMap<MemoryCheckpointSaver, MemoryBackend>();
  return {
    checkpointerName: `MemoryCheckpointSaver (${name})`,
    async createCheckpointer() {
      const backend = await openBackend();
      const saver = await MemoryCheckpointSaver.open(backend);
      backends.set(saver, backend);
      return saver;
    },
    async destroyCheckpointer(saver: MemoryCheckpointSaver) {
      await backends.get(saver)?.close();
    },
    afterAll: cleanup,
  };
}

const folders: string[] = [];
const schemas: string[] = [];

validate(initializer('simple', async () => simpleBackend({ capacity: 10_000 })));

validate(
  initializer(
    'jsonfile',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'lg-validate-'));
      folders.push(dir);
      return jsonFileBackend({ dir });
    },
    async () => {
      for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
    },
  ),
);

validate(
  initializer(
    'postgres',
    async () => {
      const schema = `lg_validate_${run}_${++counter}`;
      schemas.push(schema);
      return postgresBackend({
        url: databaseUrl,
        table: `${schema}.conversation_memory`,
        poolSize: 4,
      });
    },
    async () => {
      const { Client } = await import('pg');
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      for (const schema of schemas.splice(0))
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  ),
);

const buckets: string[] = [];
validate(
  initializer(
    'nats',
    async () => {
      const bucket = `lg_validate_${run}_${++counter}`;
      buckets.push(bucket);
      return natsBackend({ servers: natsUrl, bucket });
    },
    async () => {
      const { connect } = await import('nats');
      const nc = await connect({ servers: natsUrl });
      const jsm = await nc.jetstreamManager();
      for (const bucket of buckets.splice(0))
        await jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
      await nc.close();
    },
  ),
);
