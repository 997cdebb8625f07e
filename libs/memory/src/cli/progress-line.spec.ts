import { PassThrough } from 'node:stream';
import { ProgressLine } from './progress-line';

/** A stream that says whether it is a terminal, collecting what is written to it. */
function stream(isTTY: boolean): { out: NodeJS.WriteStream; written: () => string } {
  const pass = new PassThrough();
  let text = '';
  pass.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return {
    out: Object.assign(pass, { isTTY }) as unknown as NodeJS.WriteStream,
    written: () => text,
  };
}

describe('ProgressLine', () => {
  it('redraws one line in place on a terminal, at most every 100 ms, and ends it when done', async () => {
    const { out, written } = stream(true);
    const progress = new ProgressLine(out);
    progress.update('1 session');
    progress.update('2 sessions');
    progress.done('3 sessions');
    await new Promise(setImmediate);
    expect(written()).toBe('\r1 session\x1b[K\r3 sessions\x1b[K\n');
  });

  it('writes nothing when the stream is not a terminal', async () => {
    const { out, written } = stream(false);
    const progress = new ProgressLine(out);
    progress.update('1 session');
    progress.done('1 session');
    await new Promise(setImmediate);
    expect(written()).toBe('');
  });
});
