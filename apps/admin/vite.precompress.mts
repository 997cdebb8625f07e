import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
/** Text files worth compressing (source maps are fetched by developer tools only). */
const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;

/**
 * Writes `<file>.br` and `<file>.gz` next to every text file of the build, so the server sends
 * them as they are (express-static-gzip) instead of compressing on every request. Vite has no
 * option for it; a plugin package would add a dependency for these few lines over node:zlib.
 */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'agent-memory:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await readdir(outDir, { recursive: true })).filter((f) =>
        COMPRESSIBLE.test(f),
      );
      await Promise.all(
        files.map(async (file) => {
          const path = join(outDir, file);
          const data = await readFile(path);
          await writeFile(
            `${path}.br`,
            await brotli(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
          );
          await writeFile(`${path}.gz`, await gz(data, { level: 9 }));
        }),
      );
    },
  };
}

/**
 * Adds `<link rel="prefetch">` for the chunks the entry loads later with `import()` (the app, the
 * session view) and what they import, so they are in the HTTP cache by the time they are
 * imported. Prefetch, not modulepreload: at the lowest priority and not compiled on arrival, they
 * neither hold back the first rows' API call nor take the main thread while the rows are drawn.
 */
export function prefetchDynamicEntries(modules: string[]): Plugin {
  return {
    name: 'agent-memory:prefetch-dynamic-entries',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, context) {
        const bundle = context.bundle ?? {};
        const wanted = new Set<string>();
        const add = (fileName: string) => {
          const chunk = bundle[fileName];
          if (!chunk || chunk.type !== 'chunk' || chunk.isEntry || wanted.has(fileName)) return;
          wanted.add(fileName);
          chunk.imports.forEach(add);
        };
        for (const chunk of Object.values(bundle)) {
          if (
            chunk.type === 'chunk' &&
            chunk.facadeModuleId &&
            modules.some((m) => chunk.facadeModuleId!.endsWith(m))
          ) {
            add(chunk.fileName);
          }
        }
        return [...wanted].map((fileName) => ({
          tag: 'link',
          attrs: { rel: 'prefetch', crossorigin: true, href: `/${fileName}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}
