import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '../../..');

/** The packages a plain Node process has loaded after requiring `entry` (jest's registry would hide this). */
function packagesLoadedBy(entry: string): string[] {
  const script = `
    require(${JSON.stringify(entry)});
    const names = Object.keys(require.cache)
      .map((path) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(path)?.[1])
      .filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  const out = execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

describe('entry points', () => {
  it('the core entry loads neither pg, nats, typeorm nor terminus', () => {
    const loaded = packagesLoadedBy('./libs/memory/src/index.ts');
    expect(loaded).toContain('@nestjs/common');
    for (const optional of ['pg', 'nats', 'typeorm', '@nestjs/terminus']) {
      expect(loaded).not.toContain(optional);
    }
  }, 30_000);
});
