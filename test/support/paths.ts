import { join } from 'node:path';

/**
 * Where the tests' files are, for specs anywhere in the tree (the library's specs reach them
 * through the `@agent-memory/test-support/*` alias instead of a path up the tree).
 */

/** `test/fixtures/<parts…>`: Phero's files, the labelled recall set. */
export function fixturePath(...parts: string[]): string {
  return join(__dirname, '..', 'fixtures', ...parts);
}

/** `test/support/<name>`: a script a test starts as a child process. */
export function supportScriptPath(name: string): string {
  return join(__dirname, name);
}
