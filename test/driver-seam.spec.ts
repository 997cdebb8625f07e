/**
 * The store seam (docs/architecture.md, "Drivers"): every store folder exports a driver that
 * `BUILT_IN_DRIVERS` lists, no file outside a store's folder branches on a store's kind, and the
 * "How to add a store" steps name files and symbols that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BUILT_IN_DRIVERS, type MemoryDriver } from '@agent-memory/memory';

const REPO_ROOT = join(__dirname, '..');
const LIBRARY_SRC = join(REPO_ROOT, 'libs', 'memory', 'src');

/** The folders of libs/memory/src that hold a `*.driver.ts`: the stores. */
const STORE_FOLDERS = readdirSync(LIBRARY_SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .filter((folder) =>
    readdirSync(join(LIBRARY_SRC, folder)).some((file) => file.endsWith('.driver.ts')),
  );

/** Every source file under `dir` (no node_modules, no build output, no specs). */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return ['node_modules', 'dist'].includes(entry.name) ? [] : sourceFiles(path);
    }
    const isSource = /\.(ts|tsx|mts|mjs)$/.test(entry.name);
    const isSpec = /\.(spec|e2e-spec)\.(ts|tsx)$/.test(entry.name);
    return isSource && !isSpec ? [path] : [];
  });
}

/** The places whose code must find a store through its driver. */
function codeOutsideStores(): string[] {
  const storeDirs = STORE_FOLDERS.map((folder) => join(LIBRARY_SRC, folder));
  const roots = [
    ...readdirSync(join(REPO_ROOT, 'libs')).map((lib) => join(REPO_ROOT, 'libs', lib)),
    ...readdirSync(join(REPO_ROOT, 'apps')).map((app) => join(REPO_ROOT, 'apps', app, 'src')),
    ...readdirSync(join(REPO_ROOT, 'examples')).map((ex) => join(REPO_ROOT, 'examples', ex)),
    join(REPO_ROOT, 'apps', 'api', 'test', 'support'),
    // The project's conformance initializers and the test support build stores by their drivers.
    join(REPO_ROOT, 'test', 'conformance'),
    join(REPO_ROOT, 'test', 'support'),
    join(REPO_ROOT, 'test', 'consumer', 'app', 'src'),
    join(REPO_ROOT, 'test', 'third-party-store'),
  ].filter((path) => existsSync(path) && statSync(path).isDirectory());
  return roots
    .flatMap(sourceFiles)
    .filter((file) => !storeDirs.some((dir) => file.startsWith(`${dir}/`)));
}

describe('the store seam (docs/architecture.md, "Drivers")', () => {
  const kinds = BUILT_IN_DRIVERS.map((driver) => driver.kind);

  it('has a driver file in every store folder, each exporting a driver BUILT_IN_DRIVERS lists', async () => {
    expect(STORE_FOLDERS.length).toBe(BUILT_IN_DRIVERS.length);
    for (const folder of STORE_FOLDERS) {
      const files = readdirSync(join(LIBRARY_SRC, folder)).filter((f) => f.endsWith('.driver.ts'));
      const modules = await Promise.all(
        files.map((file) => import(join(LIBRARY_SRC, folder, file)) as Promise<object>),
      );
      const exported = modules.flatMap((module) =>
        Object.values(module).filter(
          (value): value is MemoryDriver =>
            typeof (value as Partial<MemoryDriver> | null)?.create === 'function',
        ),
      );
      expect([folder, exported.length]).toEqual([folder, 1]);
      expect([folder, BUILT_IN_DRIVERS.includes(exported[0]!)]).toEqual([folder, true]);
    }
  });

  it('lists the drivers once: no code outside drivers/ names more than one store driver', async () => {
    const names: string[] = [];
    for (const folder of STORE_FOLDERS) {
      for (const file of readdirSync(join(LIBRARY_SRC, folder))) {
        if (!file.endsWith('.driver.ts')) continue;
        const module = (await import(join(LIBRARY_SRC, folder, file))) as Record<string, unknown>;
        names.push(
          ...Object.entries(module)
            .filter(([, value]) => BUILT_IN_DRIVERS.includes(value as MemoryDriver))
            .map(([name]) => name),
        );
      }
    }
    expect(names).toHaveLength(BUILT_IN_DRIVERS.length);
    const listsDir = join(LIBRARY_SRC, 'drivers');
    const listing = codeOutsideStores()
      .filter((file) => !file.startsWith(`${listsDir}/`))
      .filter((file) => {
        const text = readFileSync(file, 'utf8');
        return names.filter((name) => new RegExp(`\\b${name}\\b`).test(text)).length > 1;
      })
      .map((file) => relative(REPO_ROOT, file));
    expect(listing).toEqual([]);
  });

  it('has no file outside a store folder that compares a kind with a store name', () => {
    const names = kinds.join('|');
    const patterns = [
      new RegExp(`\\bcase\\s+'(${names})'\\s*:`),
      new RegExp(`\\b\\w*(kind|Kind|backend|Backend|BACKEND)\\s*[!=]==?\\s*'(${names})'`),
      new RegExp(`'(${names})'\\s*[!=]==?\\s*[\\w.]*(kind|Kind|backend|Backend|BACKEND)\\b`),
    ];
    const offending = codeOutsideStores().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          patterns.some((pattern) => pattern.test(line))
            ? [`${relative(REPO_ROOT, file)}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(offending).toEqual([]);
  });

  describe('"How to add a store"', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8');
    const section = doc.split('### How to add a store')[1]!.split(/^#/m)[0]!;
    const quoted = [...section.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

    it('names files that exist', () => {
      const paths = quoted.filter(
        (text) => /^[\w.-]+(\/[\w.-]+)+$/.test(text) || text.endsWith('.mjs'),
      );
      expect(paths.length).toBeGreaterThan(3);
      const missing = paths.filter((path) => !existsSync(join(REPO_ROOT, path)));
      expect(missing).toEqual([]);
    });

    it('names symbols the code declares, and members the driver port has', () => {
      const symbols = quoted.filter((text) => /^[A-Za-z_]\w*$/.test(text) && /[A-Z]/.test(text));
      expect(symbols).toEqual(expect.arrayContaining(['MemoryDriver', 'BUILT_IN_DRIVERS']));
      const sources = [
        ...sourceFiles(LIBRARY_SRC),
        ...sourceFiles(join(REPO_ROOT, 'test', 'support')),
        ...sourceFiles(join(REPO_ROOT, 'apps', 'api', 'test', 'support')),
        join(REPO_ROOT, 'eslint.config.mjs'),
      ].map((file) => readFileSync(file, 'utf8'));
      const port = readFileSync(join(LIBRARY_SRC, 'core', 'memory-driver.ts'), 'utf8');
      const missing = symbols.filter(
        (symbol) =>
          !sources.some((text) =>
            new RegExp(`\\b(const|function|interface|type|class) ${symbol}\\b`).test(text),
          ) && !new RegExp(`^\\s+(readonly )?${symbol}\\??[(:]`, 'm').test(port),
      );
      expect(missing).toEqual([]);
    });
  });
});
