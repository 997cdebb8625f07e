import { join } from 'node:path';
import { build, type Plugin, type Rolldown } from 'vite';

/** `</script` or `</style` inside inlined code would end its element early. */
function assertInlinable(code: string, tag: 'script' | 'style', what: string): string {
  if (new RegExp(`</${tag}`, 'i').test(code)) {
    throw new Error(`cannot inline ${what}: it contains "</${tag}"`);
  }
  return code;
}

/**
 * The most an inlined script may weigh: it is in every page load, before anything is cached. A
 * bigger one has pulled in a library (React from an import meant for the app, say).
 */
const MAX_INLINE_SCRIPT_BYTES = 16_384;

/** Bundles `entry` alone as one classic script (IIFE, minified, nothing imported at run time). */
async function bundleAlone(root: string, entry: string): Promise<string> {
  const output = await build({
    configFile: false,
    root,
    logLevel: 'warn',
    publicDir: false,
    build: {
      write: false,
      sourcemap: false,
      minify: true,
      copyPublicDir: false,
      lib: { entry: join(root, entry), formats: ['iife'], name: 'agentMemoryEarlyLoad' },
    },
  });
  const chunks = (Array.isArray(output) ? output : [output as Rolldown.RolldownOutput]).flatMap(
    (result) => result.output.filter((file) => file.type === 'chunk'),
  );
  if (chunks.length !== 1) throw new Error(`${entry} bundled into ${chunks.length} chunks, not 1`);
  const code = chunks[0]!.code.trim();
  if (code.length > MAX_INLINE_SCRIPT_BYTES) {
    throw new Error(
      `${entry} bundles to ${code.length} bytes, more than the ${MAX_INLINE_SCRIPT_BYTES} an inline script may weigh: does it import the app's libraries?`,
    );
  }
  return code;
}

/**
 * Inlines the module script `src` of `index.html` as a classic script of its own bundle: it runs
 * as the page is parsed, with no request of its own, before the page's deferred module scripts.
 * A cold load then draws the first rows from the page and the API answers alone (a new browser
 * profile waits for each file's first byte; figures in docs/benchmarks.md). The server allows the
 * inline script by its hash (apps/api `securityHeaders`), never with 'unsafe-inline'.
 */
export function inlineEarlyScript(src: string): Plugin {
  let root = '';
  return {
    name: 'agent-memory:inline-early-script',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    transformIndexHtml: {
      order: 'pre',
      async handler(html) {
        const tag = new RegExp(`<script type="module" src="${src}"></script>`);
        if (!tag.test(html))
          throw new Error(`index.html has no <script type="module" src="${src}">`);
        const code = assertInlinable(
          await bundleAlone(root, src.replace(/^\//, '')),
          'script',
          src,
        );
        return html.replace(tag, () => `<script>${code}</script>`);
      },
    },
  };
}

/**
 * Puts the build's stylesheets into `index.html` as `<style>` (and drops the files): the first
 * rows are styled without another request, and no stylesheet holds back the inline early script
 * (a pending stylesheet blocks the scripts after it).
 */
export function inlineStylesheets(): Plugin {
  return {
    name: 'agent-memory:inline-stylesheets',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        const bundle = context.bundle ?? {};
        return html.replace(
          /<link rel="stylesheet"[^>]*href="\/([^"]+\.css)"[^>]*>/g,
          (link, fileName: string) => {
            const asset = bundle[fileName];
            if (!asset || asset.type !== 'asset') return link;
            const css = String(asset.source);
            // Drop the file unless a script still loads it.
            const referenced = Object.values(bundle).some(
              (file) => file.type === 'chunk' && file.code.includes(fileName),
            );
            if (!referenced) delete bundle[fileName];
            return `<style>${assertInlinable(css, 'style', fileName)}</style>`;
          },
        );
      },
    },
  };
}
