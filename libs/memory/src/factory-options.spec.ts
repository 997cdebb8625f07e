/**
 * Every backend factory names the option that is missing or bad, before it opens anything, rather
 * than failing inside a driver (`Cannot read properties of undefined`).
 */
import { jsonFileBackend, simpleBackend } from '@agent-memory/memory';
import { natsBackend, type NatsBackendOptions } from '@agent-memory/memory/nats';
import { postgresBackend, type PostgresBackendOptions } from '@agent-memory/memory/postgres';
import { DataSource } from 'typeorm';

/** What a user's `process.env.X!` gives when X is unset. */
const unsetEnv = process.env.AGENT_MEMORY_SURELY_UNSET_VARIABLE!;

describe('backend factories name the missing or bad option', () => {
  it('postgresBackend: url unset, neither url nor dataSource, both, bad numbers and table', async () => {
    await expect(postgresBackend({ url: unsetEnv })).rejects.toThrow(
      /postgresBackend needs "url" or "dataSource", and neither is set/,
    );
    await expect(postgresBackend({ url: '' })).rejects.toThrow(
      'postgresBackend: "url" must be a non-empty string, got ""',
    );
    await expect(postgresBackend(undefined as unknown as PostgresBackendOptions)).rejects.toThrow(
      'postgresBackend needs an options object',
    );
    const dataSource = new DataSource({ type: 'postgres', url: 'postgres://127.0.0.1/none' });
    await expect(
      postgresBackend({ url: 'postgres://x', dataSource } as unknown as PostgresBackendOptions),
    ).rejects.toThrow('postgresBackend takes "url" or "dataSource", not both');
    await expect(postgresBackend({ dataSource: {} as DataSource })).rejects.toThrow(
      '"dataSource" must be a TypeORM DataSource',
    );
    await expect(postgresBackend({ url: 'postgres://x', poolSize: 0 })).rejects.toThrow(
      'postgresBackend: "poolSize" must be a whole number ≥ 1, got number 0',
    );
    await expect(
      postgresBackend({ url: 'postgres://x', connectTimeoutMs: Number('soon') }),
    ).rejects.toThrow('"connectTimeoutMs" must be a whole number ≥ 1, got number NaN');
    await expect(postgresBackend({ url: 'postgres://x', table: '' })).rejects.toThrow(
      'postgresBackend: "table" must be a non-empty string',
    );
  });

  it('natsBackend: servers unset, bucket missing, bad replicas and timeout', async () => {
    await expect(natsBackend({ servers: unsetEnv, bucket: 'b' })).rejects.toThrow(
      /natsBackend needs "servers" or "connection", and neither is set/,
    );
    await expect(
      natsBackend({ servers: 'nats://127.0.0.1:1' } as unknown as NatsBackendOptions),
    ).rejects.toThrow('natsBackend: "bucket" must be a non-empty string, got undefined');
    await expect(natsBackend({ servers: [], bucket: 'b' })).rejects.toThrow(
      'natsBackend: "servers" is an empty list',
    );
    await expect(natsBackend({ servers: ['nats://a', ''], bucket: 'b' })).rejects.toThrow(
      'natsBackend: "servers[1]" must be a non-empty string',
    );
    await expect(natsBackend({ servers: 'nats://a', bucket: 'b', replicas: 2 })).rejects.toThrow(
      'natsBackend: "replicas" must be 1, 3 or 5, got 2',
    );
    await expect(natsBackend({ servers: 'nats://a', bucket: 'b', timeoutMs: -1 })).rejects.toThrow(
      'natsBackend: "timeoutMs" must be a whole number ≥ 1',
    );
  });

  it('jsonFileBackend and simpleBackend', () => {
    expect(() => jsonFileBackend({ dir: unsetEnv })).toThrow(/jsonFileBackend needs a "dir"/);
    expect(() => jsonFileBackend(undefined as never)).toThrow(
      'jsonFileBackend needs an options object',
    );
    expect(() => simpleBackend({} as never)).toThrow('simpleBackend needs "capacity"');
    expect(() => simpleBackend({ capacity: 0.5 })).toThrow(
      'simpleBackend: "capacity" must be a whole number ≥ 1, got number 0.5',
    );
  });
});
