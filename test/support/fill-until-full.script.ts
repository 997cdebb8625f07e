/**
 * `fill-until-full.script.ts <dir>`: {@link fillUntilFull} in its own process, for a run under a
 * file size limit (`startUnderFileSizeLimit`). It prints `full` when it wants space freed, waits
 * for a line on stdin, and prints its report as its last line.
 */
import { fillUntilFull } from './fill-until-full';

// Past the limit the kernel sends SIGXFSZ, which kills by default; ignored, the write fails with EFBIG.
process.on('SIGXFSZ', () => undefined);

async function main(): Promise<void> {
  const report = await fillUntilFull(process.argv[2]!, () => {
    process.stdout.write('full\n');
    return new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
