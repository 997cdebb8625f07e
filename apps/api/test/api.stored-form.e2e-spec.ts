/**
 * `POST /api/sessions/:id/messages` with an `Idempotency-Key` leaves a session the plain JSON
 * array Phero reads, on JSON files and on NATS (the key is kept beside it), and its retry stores
 * nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'nats';
import { pheroDecode } from '@agent-memory/test-support/phero-form';
import {
  backendEnv,
  startTestServer,
  userText,
  type BackendEnv,
  type TestServer,
} from './support/api-test-server';

/** The session as stored, parsed: what a Phero process reads. */
async function storedValue(env: Record<string, string>, id: string): Promise<unknown> {
  if (env.MEMORY_BACKEND === 'jsonfile') {
    return JSON.parse(await readFile(join(env.MEMORY_DIR!, `${id}.json`), 'utf8'));
  }
  const nc = await connect({ servers: env.NATS_URL });
  try {
    const kv = await nc.jetstream().views.kv(env.MEMORY_NATS_BUCKET!);
    return (await kv.get(id))!.json();
  } finally {
    await nc.close();
  }
}

describe.each(['jsonfile', 'nats'] as const)('a keyed append on the %s backend', (kind) => {
  let data: BackendEnv;
  let api: TestServer;
  beforeAll(async () => {
    data = backendEnv(kind);
    api = await startTestServer(data.env);
  });
  afterAll(async () => {
    await api?.dispose();
    await data?.cleanup();
  });

  it('stores the plain array Phero reads, and a retry stores nothing', async () => {
    const append = (texts: string[], key: string) =>
      api.append('form-1', texts.map(userText), { 'idempotency-key': key });
    const first = await (await append(['a', 'b'], 'request-1')).json();
    expect(first).toMatchObject({ first: 1, last: 2, replayed: false });
    const retry = await (await append(['a', 'b'], 'request-1')).json();
    expect(retry).toEqual({ ...first, replayed: true });
    await append(['c'], 'request-2');

    const stored = await storedValue(data.env, 'form-1');
    expect(Array.isArray(stored)).toBe(true);
    expect(pheroDecode(stored).map((m) => (m.Parts as Array<{ Text: string }>)[0]!.Text)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});
