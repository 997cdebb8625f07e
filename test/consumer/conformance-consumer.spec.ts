/**
 * What a store's author gets from `npm install @agent-memory/conformance`: packs both packages
 * (their `prepack` builds them), installs the tarballs into a project outside the repo, and runs
 * `npx agent-memory-conformance` there on the third-party test store (test/third-party-store/),
 * written against the public packages only: it passes; its broken variant fails with a report
 * naming the tests that caught it; a module without an initializer is a usage error.
 *
 * The project's `node_modules` is cached under the OS temp folder, keyed by the packages'
 * dependencies, so a second run only reinstalls the two tarballs.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NPM, packWorkspace, REPO_ROOT, run, type PackResult } from '../support/npm-pack';

const STORE_FOLDER = join(REPO_ROOT, 'test', 'third-party-store');
const workDir = mkdtempSync(join(tmpdir(), 'agent-memory-conformance-consumer-'));

/** The consumer project, its dependencies installed once per dependency list; returns its folder. */
function cachedProject(tarballs: string[]): string {
  const manifests = ['libs/memory', 'libs/conformance'].map((dir) => {
    const { dependencies, peerDependencies } = JSON.parse(
      readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    return { dependencies, peerDependencies };
  });
  const key = createHash('sha256')
    .update(JSON.stringify([manifests, process.version]))
    .digest('hex')
    .slice(0, 16);
  const project = join(tmpdir(), 'agent-memory-conformance-consumer-cache', key);
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'third-party-store', private: true }, null, 2),
  );
  const local = tarballs.map((tarball, i) => {
    copyFileSync(tarball, join(project, `package-${i}.tgz`));
    return `./package-${i}.tgz`;
  });
  run(NPM, ['install', '--no-save', '--no-package-lock', ...local], project);
  for (const file of ['store.ts', 'broken-store.ts', 'store.vitest-spec.ts']) {
    copyFileSync(join(STORE_FOLDER, file), join(project, file));
  }
  return project;
}

/** `npx agent-memory-conformance …args` in `project`: its exit status and output. */
function conformance(project: string, ...args: string[]) {
  const result = spawnSync('npx', ['--no-install', 'agent-memory-conformance', ...args], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the packed @agent-memory/conformance, run on a store outside the repository', () => {
  let project: string;
  let packed: PackResult;

  beforeAll(() => {
    const memory = packWorkspace('@agent-memory/memory', workDir);
    packed = packWorkspace('@agent-memory/conformance', workDir);
    project = cachedProject([memory, packed].map((p) => join(workDir, p.filename)));
  }, 600_000);
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('ships the built suite, the command and its test file, and no sources', () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/bin/agent-memory-conformance.js',
        'dist/processes/store-process.script.js',
        'runner/conformance.vitest.mjs',
        'LICENSE',
      ]),
    );
    expect(files.filter((f) => f.startsWith('src/') || f.endsWith('.spec.js'))).toEqual([]);
  });

  it('passes the third-party store (TypeScript, public packages only, child processes too) and exits 0', () => {
    const { status, output } = conformance(project, './store.ts');
    expect({ status, summary: output.match(/\d+ passed, \d+ failed, \d+ skipped/)?.[0] }).toEqual({
      status: 0,
      summary: expect.stringMatching(/^\d+ passed, 0 failed, 0 skipped$/),
    });
    // The cross-process tests ran: writer processes loaded the TypeScript module themselves.
    expect(output).toContain('third-party test store: 8 writers x 100 turns');
  }, 240_000);

  it('fails the broken variant with exit 1, naming each failing test and why', () => {
    const { status, output } = conformance(project, './broken-store.ts');
    expect(status).toBe(1);
    expect(output).toContain(
      'FAILED broken third-party test store memory backend conformance > messages > retrieves saved messages in order, across batches',
    );
    expect(output).toMatch(/expected \[ 'u4', 'a3', 'u2', 'a1', 'u0' \] to deeply equal/);
    expect(output).toMatch(/\d+ passed, [1-9]\d* failed/);
    // It does not say crossProcess: those tests are listed as skipped, with the reason.
    expect(output).toContain(
      'skipped broken third-party test store memory backend conformance > across OS processes > lets one of two processes compacting the same session at once win, losing nothing [skipped: the store lacks crossProcess]',
    );
  }, 120_000);

  it('type-checks a vitest spec against the published declarations, without jest types', () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          noEmit: true,
          skipLibCheck: false,
          // Node's types only (from the repository): jest's must not be needed.
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
        },
        files: ['store.ts', 'broken-store.ts', 'store.vitest-spec.ts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(() => run(process.execPath, [tsc, '-p', 'tsconfig.json'], project)).not.toThrow();
  }, 60_000);

  it('is a usage error (exit 2) for a missing module or one without an initializer', () => {
    const missing = conformance(project, './no-such-store.ts');
    expect(missing.status).toBe(2);
    expect(missing.output).toContain('no module at');
    writeFileSync(join(project, 'not-a-store.js'), 'module.exports = { name: 42 };\n');
    const invalid = conformance(project, './not-a-store.js');
    expect(invalid.status).toBe(2);
    expect(invalid.output).toContain('`name` must be a non-empty string');
  }, 60_000);
});
