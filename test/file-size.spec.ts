/**
 * No source file grows past {@link MAX_LINES} lines: every `.ts`, `.tsx` and `.mjs` file under
 * libs/, apps/, test/, bench/, scripts/ and examples/ (installed packages, build output, hidden
 * folders and generated files aside). A file that grows past it is split into modules with one
 * job each (docs/development.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const REPO_ROOT = join(__dirname, '..');

/** The most lines a source file may have. */
const MAX_LINES = 450;

/** The folders whose source files are checked. */
const CHECKED_FOLDERS = ['libs', 'apps', 'test', 'bench', 'scripts', 'examples'];

/** What counts as a source file. */
const SOURCE_FILE = /\.(ts|tsx|mjs)$/;

/** Folders of installed packages and build output: nothing in them is written by hand. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage']);

/** A generated file says so near its top (`@generated`, the common marker). */
const GENERATED_MARK = /@generated\b/;

/** The source files under `dir`, as absolute paths. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return SKIPPED_FOLDERS.has(entry.name) || entry.name.startsWith('.') ? [] : sourceFiles(path);
    }
    return entry.isFile() && SOURCE_FILE.test(entry.name) ? [path] : [];
  });
}

/** The lines of `text` as an editor numbers them (a final newline starts no line of its own). */
function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

describe('file size', () => {
  it(`keeps every hand-written source file at ${MAX_LINES} lines or fewer`, () => {
    const files = CHECKED_FOLDERS.flatMap((folder) => sourceFiles(join(REPO_ROOT, folder)));
    // The walk found the tree (a wrong root would pass with no file at all).
    expect(files).toContain(join(REPO_ROOT, 'test', 'file-size.spec.ts'));
    const tooLong = files
      .map((path) => ({ path, text: readFileSync(path, 'utf8') }))
      .filter(({ text }) => !GENERATED_MARK.test(text.slice(0, 500)))
      .map(({ path, text }) => ({ path: relative(REPO_ROOT, path), lines: lineCount(text) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines (at most ${MAX_LINES})`);
    expect(tooLong).toEqual([]);
  });
});
