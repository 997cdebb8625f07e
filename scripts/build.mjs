// `npm run build`: compiles the server code (apps/api, apps/worker, apps/shared, libs/memory) to `dist/` with
// swc, keeping the folder layout. Decorator metadata is emitted and the `@agent-memory/*` path
// aliases are rewritten to relative requires, so `node dist/apps/api/src/main.js` runs with the
// production dependencies only (the Docker image does this). Type-checking stays with `tsc`.
import { transformFile } from '@swc/core';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
const sources = ['apps/api/src', 'apps/worker/src', 'apps/shared', 'libs/memory/src'];

async function* typescriptFiles(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* typescriptFiles(path);
    else if (/\.ts$/.test(entry.name) && !/\.(spec|e2e-spec|d)\.ts$/.test(entry.name)) yield path;
  }
}

await rm(out, { recursive: true, force: true });
let count = 0;
for (const source of sources) {
  for await (const file of typescriptFiles(join(root, source))) {
    const { code, map } = await transformFile(file, {
      sourceMaps: true,
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
        baseUrl: root,
        paths: {
          '@agent-memory/memory': ['libs/memory/src/index.ts'],
          '@agent-memory/memory/*': ['libs/memory/src/*/index.ts'],
        },
      },
      module: { type: 'commonjs' },
    });
    const target = join(out, relative(root, file)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, `${code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
    if (map) await writeFile(`${target}.map`, map);
    count += 1;
  }
}
console.log(`compiled ${count} files to ${relative(root, out)}/`);
