/**
 * Loads a store's module by path: CommonJS and TypeScript through `require` (TypeScript needs a
 * loader registered, such as `@swc-node/register`), ECMAScript modules through `import()`.
 */
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `import()` as Node runs it (TypeScript compiled to CommonJS would turn it into `require`). */
const nativeImport = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<Record<string, unknown>>;

/** The module's exports; a CommonJS module's `module.exports` object as is. */
export async function loadModule(path: string): Promise<Record<string, unknown>> {
  const absolute = resolve(path);
  if (extname(absolute) === '.mjs') return nativeImport(pathToFileURL(absolute).href);
  // A path known only at run time, loaded with the hooks (a TypeScript loader) registered.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(absolute) as Record<string, unknown>;
}

/**
 * The export `name` of `exports`. For `default`, also a CommonJS module's `module.exports` itself,
 * and the `default` of a compiled ECMAScript module that `import()` wrapped once more.
 */
export function exportOf(exports: Record<string, unknown>, name = 'default'): unknown {
  if (name !== 'default') return exports[name];
  const value = exports.default ?? exports;
  const inner = (value as { default?: unknown } | null)?.default;
  return inner !== undefined && typeof inner === 'object' ? inner : value;
}

/** The default export of a loaded module (what a store's module gives the command). */
export function defaultExportOf(exports: Record<string, unknown>): unknown {
  return exportOf(exports);
}
