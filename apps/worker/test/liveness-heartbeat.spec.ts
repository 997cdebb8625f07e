import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLivenessHeartbeat } from '../src/liveness-heartbeat';

describe('the worker liveness heartbeat', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'heartbeat-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Up to 10 s: the heartbeat writes its file asynchronously, which a busy machine delays.
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('writes the time while the worker is alive, and stops writing once it is not', async () => {
    jest.useFakeTimers({ doNotFake: ['setTimeout', 'nextTick', 'setImmediate'] });
    const file = join(dir, 'alive');
    let alive = true;
    const stop = startLivenessHeartbeat(file, () => alive, 1000);
    try {
      await until(() => readFileSafe(file) !== '');
      const first = Number(readFileSafe(file));
      expect(first).toBeGreaterThan(0);

      // The tick comes 1 s (of the fake clock) later. A tick while the first beat's write has
      // not finished is skipped (one beat at a time), so tick again from the same time until one
      // writes.
      await until(() => {
        if (Number(readFileSafe(file)) === first + 6000) return true;
        jest.setSystemTime(first + 5000);
        jest.advanceTimersByTime(1000);
        return false;
      });
      expect(Number(readFileSafe(file))).toBe(first + 6000);

      alive = false;
      const mtime = statSync(file).mtimeMs;
      jest.setSystemTime(first + 10_000);
      jest.advanceTimersByTime(3000);
      await new Promise((r) => setTimeout(r, 50));
      expect(Number(readFileSafe(file))).toBe(first + 6000);
      expect(statSync(file).mtimeMs).toBe(mtime);
    } finally {
      stop();
      jest.useRealTimers();
    }
  });

  it('waits for an asynchronous check and writes nothing while it answers false or fails', async () => {
    const file = join(dir, 'alive');
    let answers = 0;
    const stop = startLivenessHeartbeat(
      file,
      async () => {
        answers++;
        if (answers === 1) return false;
        throw new Error('the backend is not ready');
      },
      10,
    );
    try {
      await until(() => answers >= 3);
      expect(answers).toBeGreaterThanOrEqual(3);
      expect(readFileSafe(file)).toBe('');
    } finally {
      stop();
    }
  });
});

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}
