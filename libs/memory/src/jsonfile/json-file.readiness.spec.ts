/**
 * `check()` of the JSON-file backend (what readiness calls) on a real small filesystem: a 2 MiB
 * tmpfs mounted for the test (CI runs as root), filled past the free-space floor and remounted
 * read-only.
 */
import { spawnSync } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileBackend, userMessage } from '@agent-memory/memory';
import {
  mountSmallFilesystem,
  takeSpace,
  type SmallFilesystem,
} from '@agent-memory/test-support/small-filesystem';

const small = mountSmallFilesystem(2 << 20);
const describeMounted = small ? describe : describe.skip;

const remount = (dir: string, mode: 'ro' | 'rw') =>
  expect(spawnSync('mount', ['-o', `remount,${mode}`, dir]).status).toBe(0);

describeMounted('jsonFileBackend check() on a small filesystem', () => {
  const fs = small as SmallFilesystem;
  afterAll(() => fs.release());

  it('reports down, naming the floor, while free space is under minFreeBytes, and up once freed', async () => {
    const backend = jsonFileBackend({ dir: join(fs.dir, 'sessions'), minFreeBytes: 1 << 20 });
    await expect(backend.check()).resolves.toBeUndefined();
    const taken = takeSpace(fs.dir, 1536 << 10);
    await expect(backend.check()).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: expect.stringMatching(
        /bytes free, under the floor of 1048576 bytes \(minFreeBytes\)/,
      ),
    });
    unlinkSync(taken);
    await expect(backend.check()).resolves.toBeUndefined();
  });

  it('keeps a floor of 16 MiB by default, so the 2 MiB filesystem is not ready', async () => {
    await expect(jsonFileBackend({ dir: join(fs.dir, 'sessions') }).check()).rejects.toMatchObject({
      code: 'BACKEND_UNAVAILABLE',
      message: expect.stringContaining('under the floor of 16777216 bytes'),
    });
  });

  it('reports down, naming why, on a read-only folder, where a save is BACKEND_UNAVAILABLE naming it', async () => {
    const backend = jsonFileBackend({ dir: join(fs.dir, 'sessions'), minFreeBytes: 0 });
    await (await backend.open('s1')).save([userMessage('before')]);
    remount(fs.dir, 'ro');
    try {
      await expect(backend.check()).rejects.toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: expect.stringMatching(/the folder is not writable \(EROFS\)/),
      });
      await expect((await backend.open('s1')).save([userMessage('refused')])).rejects.toMatchObject(
        { code: 'BACKEND_UNAVAILABLE', summary: 'JSON file request failed: save of session "s1"' },
      );
    } finally {
      remount(fs.dir, 'rw');
    }
    await expect(backend.check()).resolves.toBeUndefined();
    await (await backend.open('s1')).save([userMessage('after')]);
    expect((await backend.inspect('s1'))?.messages).toBe(2);
  });
});

describe('jsonFileBackend minFreeBytes', () => {
  it('must be a whole number of at least 0', () => {
    for (const bad of [-1, 1.5, NaN]) {
      expect(() => jsonFileBackend({ dir: '/tmp/x', minFreeBytes: bad })).toThrow(RangeError);
    }
  });
});
