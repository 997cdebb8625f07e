import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userMessage } from '../core/message';
import { jsonFileBackend } from './json-file.backend';

const root = mkdtempSync(join(tmpdir(), 'agent-memory-read-only-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file of `dir` with its bytes. */
const folderState = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));

describe('jsonFileBackend({ readOnly: true })', () => {
  it('lists and reads sessions without writing anything to the folder', async () => {
    const dir = join(root, 'sessions');
    const writer = jsonFileBackend({ dir });
    for (const id of ['a', 'b', 'c']) await (await writer.open(id)).save([userMessage(id)]);
    rmSync(join(dir, '_index'), { force: true });
    const before = folderState(dir);

    const reader = jsonFileBackend({ dir, readOnly: true });
    const page = await reader.list({ limit: 2 });
    expect(page.items).toHaveLength(2);
    const rest = await reader.list({ limit: 2, after: page.next! });
    expect([...page.items, ...rest.items].map((info) => info.id).sort()).toEqual(['a', 'b', 'c']);
    expect(await (await reader.open('b')).entries()).toHaveLength(1);
    expect(folderState(dir)).toEqual(before);
    expect(readdirSync(dir)).not.toContain('_index');
  });

  it('refuses delete and erase', async () => {
    const reader = jsonFileBackend({ dir: join(root, 'sessions'), readOnly: true });
    await expect(reader.delete('a')).rejects.toThrow('readOnly');
    await expect(reader.erase({ resource: 'r' })).rejects.toThrow('readOnly');
  });
});
