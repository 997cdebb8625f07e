import { parseMemoryConfig } from '@agent-memory/memory-config';
import { chooseTransferBackend } from './transfer-backend';

describe('chooseTransferBackend', () => {
  it("uses the server's defaults when nothing is set", () => {
    const server = parseMemoryConfig({});
    const choice = chooseTransferBackend({}, {});
    expect(choice.driver.kind).toBe(server.backend);
    expect(choice.settings).toEqual(server.store);
  });

  it('chooses what the server would for the same variables, a database URL alone included', () => {
    const env = { DATABASE_URL: 'postgres://127.0.0.1/db', MEMORY_DIR: '/srv/sessions' };
    const server = parseMemoryConfig(env);
    const choice = chooseTransferBackend({}, env);
    expect(choice.driver.kind).toBe(server.backend);
    expect(choice.settings).toEqual(server.store);
    const nats = {
      MEMORY_BACKEND: 'nats',
      NATS_URL: 'nats://127.0.0.1:4222',
      MEMORY_NATS_BUCKET: 'b',
    };
    const natsChoice = chooseTransferBackend({}, nats);
    expect(natsChoice.driver.kind).toBe(parseMemoryConfig(nats).backend);
    expect(natsChoice.settings).toEqual(parseMemoryConfig(nats).store);
  });

  it('lets each flag override its variable', () => {
    const choice = chooseTransferBackend(
      { backend: 'postgres', url: 'postgres://h/db', table: 's.t' },
      { MEMORY_BACKEND: 'jsonfile' },
    );
    expect(choice.driver.kind).toBe('postgres');
    expect(choice.settings).toMatchObject({ url: 'postgres://h/db', table: 's.t' });
  });

  it('names the flag and the variable of a missing setting, and the stores there are', () => {
    expect(() => chooseTransferBackend({ backend: 'postgres' }, {})).toThrow(
      /^no database: pass --url postgres:\/\/\S+ or set DATABASE_URL$/,
    );
    expect(() => chooseTransferBackend({ backend: 'nats' }, {})).toThrow(
      /^no NATS server: pass --nats-url nats:\/\/\S+ or set NATS_URL$/,
    );
    expect(() => chooseTransferBackend({ backend: 'simple' }, {})).toThrow(
      'unknown backend "simple": jsonfile, postgres or nats (simple lives only inside a process)',
    );
  });
});
