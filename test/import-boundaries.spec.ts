/**
 * The import rules docs/architecture.md states are the ones ESLint enforces: for every folder of
 * libs/memory/src, an import of another folder is an error exactly when the table "What may
 * import what" does not list it; the apps reach the workspace libraries by name only, and
 * libs/memory-config reaches nothing of the repository by path but its own files; libs/conformance
 * uses the library's main entry by name only. Probe files are
 * linted where they would stand, without being written.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LintInput, LintOutput } from './support/lint-text.script';

const REPO_ROOT = join(__dirname, '..');
const LIBRARY_SRC = join(REPO_ROOT, 'libs', 'memory', 'src');

/** Lints `inputs` with the repository's ESLint config, in a process of its own. */
function lint(inputs: LintInput[]): LintOutput[] {
  const run = spawnSync(
    process.execPath,
    ['-r', '@swc-node/register', join(__dirname, 'support', 'lint-text.script.ts')],
    { cwd: REPO_ROOT, input: JSON.stringify(inputs), encoding: 'utf8' },
  );
  if (run.status !== 0)
    throw new Error(`lint-text.script.ts exited with ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as LintOutput[];
}

/** The folders of libs/memory/src. */
const FOLDERS = readdirSync(LIBRARY_SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The table under "What may import what": each folder with the folders it may import. */
function documentedLayers(): Map<string, string[]> {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = doc.split('### What may import what')[1]!.split(/^#/m)[0]!;
  const folderNames = (cell: string) =>
    [...cell.matchAll(/`([a-z-]+)`/g)]
      .map((match) => match[1]!)
      .filter((name) => FOLDERS.includes(name));
  const layers = new Map<string, string[]>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const [folders, allowed] = row.split('|').slice(1, 3);
    for (const folder of folderNames(folders!)) layers.set(folder, folderNames(allowed!));
  }
  return layers;
}

/** The import paths (`import '<path>';`, one a line) ESLint refuses in `output`, in order. */
function refused(output: LintOutput, code: string): string[] {
  const lines = code.split('\n');
  const refusedLines = output.messages
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.line);
  return [...new Set(refusedLines)]
    .sort((a, b) => a - b)
    .map((line) => /'([^']+)'/.exec(lines[line - 1]!)![1]!);
}

describe('import boundaries (docs/architecture.md, eslint.config.mjs)', () => {
  const layers = documentedLayers();
  const libraryProbes = FOLDERS.map((folder) => ({
    filePath: `libs/memory/src/${folder}/boundary-probe.ts`,
    code: FOLDERS.filter((other) => other !== folder)
      .map((other) => `import '../${other}';`)
      .join('\n'),
  }));
  const workspaceProbes = [
    {
      filePath: 'apps/api/src/boundary-probe.ts',
      code: [
        "import '../../../libs/memory-config/src/memory-config';",
        "import '@agent-memory/memory-config/memory-config';",
        "import '../../../libs/memory/src/rag';",
        "import '@agent-memory/memory/rag/rag';",
        "import '@agent-memory/memory-config';",
        "import '@agent-memory/memory/rag';",
      ].join('\n'),
    },
    {
      filePath: 'libs/memory-config/src/boundary-probe.ts',
      code: [
        "import '../../../apps/api/src/config/api-config';",
        "import '../../memory/src/rag';",
        "import '@agent-memory/memory/rag/rag';",
        "import '@agent-memory/memory-config';",
        "import '@agent-memory/test-support/postgres';",
        "import '@agent-memory/memory/rag';",
        "import './memory-config';",
      ].join('\n'),
    },
    {
      filePath: 'libs/conformance/src/suites/boundary-probe.ts',
      code: [
        "import '../../../memory/src/core/errors';",
        "import '@agent-memory/memory/postgres';",
        "import '@agent-memory/memory-config';",
        "import '@agent-memory/test-conformance';",
        "import '@agent-memory/test-support/postgres';",
        "import '@agent-memory/memory';",
        "import '../fixtures';",
      ].join('\n'),
    },
  ];
  let outputs: LintOutput[];

  beforeAll(() => {
    outputs = lint([...libraryProbes, ...workspaceProbes]);
  }, 60_000);

  it('has a row for every folder of libs/memory/src', () => {
    expect([...layers.keys()].sort()).toEqual(FOLDERS);
  });

  it('refuses exactly the imports of another folder that the table does not list', () => {
    for (const [index, probe] of libraryProbes.entries()) {
      const folder = FOLDERS[index]!;
      const allowed = layers.get(folder) ?? [];
      const expected = FOLDERS.filter((other) => other !== folder && !allowed.includes(other));
      expect([folder, refused(outputs[index]!, probe.code)]).toEqual([
        folder,
        expected.map((other) => `../${other}`),
      ]);
    }
  });

  it('keeps rag off the PostgreSQL backend: it shares only pg-errors with it', () => {
    const rag = FOLDERS.indexOf('rag');
    const refusedByRag = refused(outputs[rag]!, libraryProbes[rag]!.code);
    expect(refusedByRag).toContain('../postgres');
    expect(refusedByRag).not.toContain('../pg-errors');
  });

  it('lets the apps and libs/memory-config reach the workspace libraries by name only', () => {
    const [api, config, conformance] = workspaceProbes.map((probe, index) =>
      refused(outputs[libraryProbes.length + index]!, probe.code),
    );
    expect(api).toEqual([
      '../../../libs/memory-config/src/memory-config',
      '@agent-memory/memory-config/memory-config',
      '../../../libs/memory/src/rag',
      '@agent-memory/memory/rag/rag',
    ]);
    expect(config).toEqual([
      '../../../apps/api/src/config/api-config',
      '../../memory/src/rag',
      '@agent-memory/memory/rag/rag',
      '@agent-memory/memory-config',
      '@agent-memory/test-support/postgres',
    ]);
    // The conformance package uses the library as any store's author does.
    expect(conformance).toEqual([
      '../../../memory/src/core/errors',
      '@agent-memory/memory/postgres',
      '@agent-memory/memory-config',
      '@agent-memory/test-conformance',
      '@agent-memory/test-support/postgres',
    ]);
  });
});
