/**
 * `POST /api/import` on a JSON-file folder whose disk fills up inside a session (a tmpfs mounted
 * for the test; CI runs as root): 507 `IMPORT_INCOMPLETE` naming what part is stored, the part
 * keeps its `resource` (so erasing the resource finds it), and the same body sent again once
 * space is freed completes it, storing nothing twice.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  mountSmallFilesystem,
  takeSpace,
  type SmallFilesystem,
} from '@agent-memory/test-support/small-filesystem';
import { startTestServer, userText, type TestServer } from './support/api-test-server';

const small = mountSmallFilesystem(8 << 20);
const describeMounted = small ? describe : describe.skip;

/** A session line of `batches` batches of 3 messages of 20 KB, each batch with its own time. */
function line(id: string, batches: number): string {
  const entries = [];
  for (let b = 0; b < batches; b++) {
    const savedAt = new Date(Date.UTC(2026, 0, 1, 0, b)).toISOString();
    for (let i = 0; i < 3; i++) {
      const text = `${id} ${b}.${i} ${'z'.repeat(20_000)}`;
      entries.push({ cursor: entries.length + 1, message: userText(text), savedAt });
    }
  }
  return JSON.stringify({ id, meta: { resource: 'tenant' }, entries });
}

describeMounted('an import that fills the disk (JSON files)', () => {
  const fs = small as SmallFilesystem;
  let api: TestServer;
  beforeAll(async () => {
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

  const importBody = (body: string) =>
    api.request('/api/import', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-ndjson' },
    });

  it('answers 507 IMPORT_INCOMPLETE naming the part, which a second send completes', async () => {
    const body = `${line('small', 1)}\n${line('big', 30)}\n`;
    const space = takeSpace(fs.dir, 7 << 20);
    const failed = await importBody(body);
    expect(failed.status).toBe(507);
    const error = (await failed.json()) as { code: string; message: string };
    expect(error.code).toBe('IMPORT_INCOMPLETE');
    expect(error.message).toMatch(
      /import line 2: session "big" is stored in part \(its metadata and \d+ of 90 messages\)/,
    );
    expect(error.message).toContain('storage is full');
    const part = (await (await api.request('/api/sessions/big')).json()) as {
      meta: Record<string, string>;
    };
    expect(part.meta).toEqual({ resource: 'tenant' });

    rmSync(space);
    const again = await importBody(body);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ imported: 1, skipped: 1 });
    const page = (await (await api.request('/api/sessions/big/messages?limit=500')).json()) as {
      items: { message: { parts: { text: string }[] } }[];
    };
    const texts = page.items.map((item) => item.message.parts[0]!.text.split(' ')[1]);
    expect(texts).toHaveLength(90);
    expect(new Set(texts).size).toBe(90);

    const erased = await api.request('/api/resources/tenant', { method: 'DELETE' });
    expect(await erased.json()).toMatchObject({ sessions: 2, messages: 93 });
  });
});
