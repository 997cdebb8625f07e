import { parseMemoryConfig } from '@agent-memory/memory-config';
import { chooseTransferBackend } from './transfer-backend';

describe('chooseTransferBackend', () => {
  it("uses the server's defaults when nothing is set", () => {
    const server = parseMemoryConfig({});
    expect(chooseTransferBackend({}, {})).toMatchObject({
      backend: server.backend,
      dir: server.memoryDir,
      bucket: server.natsBucket,
    });
  });

  it('chooses what the server would for the same variables, a database URL alone included', () => {
    const env = { DATABASE_URL: 'postgres://127.0.0.1/db', MEMORY_DIR: '/srv/sessions' };
    const server = parseMemoryConfig(env);
    expect(chooseTransferBackend({}, env)).toMatchObject({
      backend: server.backend,
      dir: server.memoryDir,
    });
    const nats = {
      MEMORY_BACKEND: 'nats',
      NATS_URL: 'nats://127.0.0.1:4222',
      MEMORY_NATS_BUCKET: 'b',
    };
    expect(chooseTransferBackend({}, nats)).toMatchObject({
      backend: parseMemoryConfig(nats).backend,
      bucket: parseMemoryConfig(nats).natsBucket,
    });
  });

  it('lets each flag override its variable', () => {
    expect(
      chooseTransferBackend(
        { backend: 'postgres', url: 'postgres://h/db', table: 's.t' },
        { MEMORY_BACKEND: 'jsonfile' },
      ),
    ).toMatchObject({ backend: 'postgres', url: 'postgres://h/db', table: 's.t' });
  });
});
