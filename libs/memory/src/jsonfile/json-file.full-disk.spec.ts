/**
 * A full disk under the JSON-file store: a tmpfs of 2 MiB mounted for the test, or, where the
 * system refuses the mount, a child process under a file size limit (the same short writes, then
 * `EFBIG`). Nothing acknowledged is lost, nothing refused is half stored.
 */
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fillUntilFull, type FullDiskReport } from '@agent-memory/test-support/fill-until-full';
import {
  mountSmallFilesystem,
  startUnderFileSizeLimit,
  takeSpace,
} from '@agent-memory/test-support/small-filesystem';
import { supportScriptPath } from '@agent-memory/test-support/paths';

/** Fills a tmpfs (or a size-limited child where mounting is refused) and reports. */
async function fillSmallDisk(): Promise<FullDiskReport> {
  const fs = mountSmallFilesystem(2 << 20);
  if (fs) {
    try {
      // Room to free once the disk is full.
      const taken = takeSpace(fs.dir, 384 << 10);
      return await fillUntilFull(fs.dir, () => unlinkSync(taken));
    } finally {
      fs.release();
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-fsize-'));
  try {
    const run = startUnderFileSizeLimit(
      supportScriptPath('fill-until-full.script.ts'),
      [dir],
      384 << 10,
    );
    run.child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('full\n')) {
        run.lift();
        run.child.stdin!.write('go\n');
      }
    });
    const code = await run.exited;
    if (code !== 0) throw new Error(`the filling process exited with ${code}:\n${run.output()}`);
    return JSON.parse(run.output().trim().split('\n').at(-1)!) as FullDiskReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('JsonFileMemory on a full disk', () => {
  it('keeps every acknowledged save, refuses the rest with STORAGE_FULL and resumes once space is freed', async () => {
    const report = await fillSmallDisk();
    expect(report.acknowledged).toBeGreaterThan(report.sessions.length);
    expect(Object.keys(report.refusals)).toEqual(['STORAGE_FULL']);
    expect(report.lost).toEqual([]);
    expect(report.undecodable).toEqual([]);
    expect(report.resumed).toEqual(report.sessions);
  }, 120_000);
});
