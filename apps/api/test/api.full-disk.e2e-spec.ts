/**
 * The admin API on a JSON-file folder whose disk fills up (a 2 MiB tmpfs mounted for the test; CI
 * runs as root): every 201 reads back, every refusal is 507 `STORAGE_FULL`, every session still
 * decodes, and appends are stored again once space is freed.
 */
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  mountSmallFilesystem,
  takeSpace,
  type SmallFilesystem,
} from '@agent-memory/test-support/small-filesystem';
import { startTestServer, userText, type TestServer } from './support/api-test-server';

const small = mountSmallFilesystem(2 << 20);
// Where mounting is refused, the store's own full-disk spec runs under a file size limit instead.
const describeMounted = small ? describe : describe.skip;

describeMounted('the admin API on a full disk (JSON files)', () => {
  const fs = small as SmallFilesystem;
  let api: TestServer;
  let taken: string;
  beforeAll(async () => {
    taken = takeSpace(fs.dir, 384 << 10);
    // No storage floor here: this server is about the write path on a disk that fills up; the
    // floor's readiness answer is tested below.
    api = await startTestServer({
      MEMORY_BACKEND: 'jsonfile',
      MEMORY_DIR: join(fs.dir, 'data'),
      MEMORY_JSONFILE_MIN_FREE_MB: '0',
    });
  });
  afterAll(async () => {
    await api?.dispose();
    fs.release();
  });

  const sessions = ['plain-0', 'plain-1', 'keyed-0', 'keyed-1'];
  /** Text of the appends each session got a 201 for, by cursor. */
  const stored = new Map<string, Map<number, string>>(sessions.map((id) => [id, new Map()]));

  const append = (id: string, text: string, n: number) =>
    api.request(`/api/sessions/${id}/messages`, {
      method: 'POST',
      json: { messages: [userText(text)] },
      // A key moves a session to the log form; the others stay plain while they are small.
      headers: id.startsWith('keyed') ? { 'idempotency-key': `${id}-${n}` } : {},
    });

  async function readBack(id: string): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    let after = 0;
    for (;;) {
      const response = await api.request(`/api/sessions/${id}/messages?after=${after}&limit=500`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as {
        items: Array<{ cursor: number; message: { parts: Array<{ text: string }> } }>;
      };
      for (const item of page.items) found.set(item.cursor, item.message.parts[0]!.text);
      if (page.items.length === 0) return found;
      after = page.items.at(-1)!.cursor;
    }
  }

  it('answers 507 STORAGE_FULL once the disk is full and loses no acknowledged append', async () => {
    const statuses = new Map<string, number>();
    await Promise.all(
      sessions.map(async (id, s) => {
        let refused = 0;
        for (let n = 0; refused < 3 && n < 1000; n++) {
          const size = id.startsWith('plain') ? 1500 : 20_000 + ((n * 7919 + s) % 40_000);
          const text = `${id}#${n} ${'y'.repeat(size)}`;
          const response = await append(id, text, n);
          const body = (await response.json()) as { first?: number; code?: string };
          const key = response.status === 201 ? '201' : `${response.status} ${body.code}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          if (response.status === 201) stored.get(id)!.set(body.first!, text);
          else refused++;
        }
      }),
    );
    expect([...statuses.keys()].sort()).toEqual(['201', '507 STORAGE_FULL']);

    for (const id of sessions) {
      expect(await readBack(id)).toEqual(stored.get(id));
      expect((await api.request(`/api/sessions/${id}`)).status).toBe(200);
    }
    const list = await (await api.request('/api/sessions?limit=50')).json();
    expect(list.items.map((item: { id: string }) => item.id).sort()).toEqual([...sessions].sort());
  });

  it('stores appends again once space is freed', async () => {
    unlinkSync(taken);
    for (const [s, id] of sessions.entries()) {
      const text = `${id} after space was freed`;
      const response = await append(id, text, 10_000 + s);
      expect(response.status).toBe(201);
      stored.get(id)!.set(((await response.json()) as { first: number }).first, text);
      expect(await readBack(id)).toEqual(stored.get(id));
    }
  });
});

const readinessDisk = mountSmallFilesystem(2 << 20);

(readinessDisk ? describe : describe.skip)('readiness on a filling disk (JSON files)', () => {
  const fs = readinessDisk as SmallFilesystem;
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer({
      MEMORY_BACKEND: 'jsonfile',
      MEMORY_DIR: join(fs.dir, 'data'),
      MEMORY_JSONFILE_MIN_FREE_MB: '1',
    });
  });
  afterAll(async () => {
    await api?.dispose();
    fs.release();
  });

  it('answers 503 on /health/ready while free space is under MEMORY_JSONFILE_MIN_FREE_MB, 200 once freed', async () => {
    expect((await api.request('/health/ready', { token: null })).status).toBe(200);
    const taken = takeSpace(fs.dir, 1536 << 10);
    const down = await api.request('/health/ready', { token: null });
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ error: { memory: { status: 'down' } } });
    unlinkSync(taken);
    expect((await api.request('/health/ready', { token: null })).status).toBe(200);
  });
});
