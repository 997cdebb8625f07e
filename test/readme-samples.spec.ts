/**
 * The docs cannot rot: every ```ts block of README.md, docs/*.md and the package's own README
 * type-checks against the package's public entry points as pasted, and the README's tour (its
 * ```bash tour blocks) runs against a started admin server.
 *
 * Each TypeScript block is compiled as a module of its own, in one program, with nothing added but
 * the declarations of the values a reader already has (`session`, `apiKey`, `dataSource`): a block
 * imports every name it uses, so one that leaves an import out fails. A block that cannot compile
 * on its own must say so with the info string ```ts fragment (none does today).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';
import { startApiProcess, type ApiProcess } from '../apps/api/test/support/api-process';
import { TEST_ADMIN_TOKEN } from '../apps/api/test/support/api-test-server';

const REPO_ROOT = join(__dirname, '..');

/** The documents whose samples are checked. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'libs/memory/README.md',
];

/**
 * What a reader of a sample already has in scope: values from the surrounding text, never an
 * import (a sample imports every name it uses, as a pasted file must).
 */
const AMBIENT: Record<string, string> = {
  apiKey: 'declare const apiKey: string;',
  session: "declare const session: import('@agent-memory/memory').SessionStore;",
  dataSource: "declare const dataSource: import('typeorm').DataSource;",
  initializer:
    "declare const initializer: import('@agent-memory/conformance').MemoryBackendInitializer;",
};

interface Sample {
  document: string;
  line: number;
  code: string;
}

/** The fenced blocks with exactly `info` as their info string, list indentation removed. */
function fencedBlocks(document: string, info: string): Sample[] {
  const text = readFileSync(join(REPO_ROOT, document), 'utf8');
  const fence = new RegExp(`^( *)\`\`\`${info}\\n([\\s\\S]*?)^\\1\`\`\``, 'gm');
  return [...text.matchAll(fence)].map((match) => ({
    document,
    line: text.slice(0, match.index).split('\n').length,
    code: match[2]!
      .split('\n')
      .map((line) => line.slice(match[1]!.length))
      .join('\n'),
  }));
}

/** Whether `code` declares `name` itself. */
function declares(code: string, name: string): boolean {
  return new RegExp(`\\b(const|let|var|class|function|interface|type)\\s+${name}\\b`).test(code);
}

/** The ambient declarations `code` needs: the reader's values it uses and does not declare. */
function preludeFor(code: string): string {
  const uses = (name: string) => new RegExp(`(?<![.\\w$'"])${name}\\b`).test(code);
  return Object.entries(AMBIENT)
    .filter(([name]) => uses(name) && !declares(code, name))
    .map(([, declaration]) => declaration)
    .join('\n');
}

/**
 * Type-checks each sample as a module of its own, in one program with the repository's compiler
 * options (the package's entry points resolve to their sources); returns one line per error.
 */
function sampleProblems(samples: Sample[]): string[] {
  const dir = mkdtempSync(join(REPO_ROOT, '.tmp-doc-samples-'));
  try {
    const files = new Map<string, Sample>();
    samples.forEach((sample, i) => {
      const file = join(dir, `sample-${i}.ts`);
      writeFileSync(file, `${preludeFor(sample.code)}\n${sample.code}\nexport {};\n`);
      files.set(file, sample);
    });
    const config = ts.getParsedCommandLineOfConfigFile(
      join(REPO_ROOT, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    )!;
    const program = ts.createProgram([...files.keys()], {
      ...config.options,
      // Samples may `await` at the top level, as a script would.
      module: ts.ModuleKind.ES2022,
      noEmit: true,
      noUnusedLocals: false,
    });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && files.has(d.file.fileName))
      .map((d) => {
        const sample = files.get(d.file!.fileName)!;
        return `${sample.document} (block at line ${sample.line}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `script` with bash (`-euo pipefail`) and resolves with its exit code and output. */
function runBash(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('documentation samples', () => {
  it('every TypeScript block of the README and docs/ type-checks against the package', () => {
    const samples = DOCUMENTS.flatMap((document) => fencedBlocks(document, 'ts'));
    expect(samples.length).toBeGreaterThanOrEqual(10);
    expect(new Set(samples.map((sample) => sample.document))).toEqual(
      new Set([
        'README.md',
        'docs/agent-sdks.md',
        'docs/architecture.md',
        'docs/conformance.md',
        'docs/mcp.md',
        'docs/operations.md',
        'docs/recall.md',
        'docs/testing.md',
        'libs/memory/README.md',
      ]),
    );

    expect(sampleProblems(samples)).toEqual([]);
  }, 180_000);

  it('fails a block that uses a name without importing it', () => {
    const sample = (code: string): Sample => ({ document: 'test.md', line: 1, code });
    const problems = sampleProblems([
      sample('MemoryModule.forRoot({ backend: () => simpleBackend({ capacity: 100 }) });'),
      sample(
        "import { MemoryModule, simpleBackend } from '@agent-memory/memory';\n" +
          'MemoryModule.forRoot({ backend: () => simpleBackend({ capacity: 100 }) });',
      ),
      sample('await session.retrieve();'),
    ]);
    expect(problems).toEqual([
      "test.md (block at line 1): Cannot find name 'MemoryModule'.",
      "test.md (block at line 1): Cannot find name 'simpleBackend'.",
    ]);
  }, 60_000);

  describe("the README's tour", () => {
    let server: ApiProcess;
    const dataDir = mkdtempSync(join(tmpdir(), 'readme-tour-'));

    beforeAll(async () => {
      server = await startApiProcess({ MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: dataDir }, 180_000);
    }, 200_000);
    afterAll(async () => {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('appends, reads and compacts through curl as written', async () => {
      const tour = fencedBlocks('README.md', 'bash tour');
      expect(tour.length).toBeGreaterThanOrEqual(2);
      const run = await runBash(tour.map((block) => block.code).join('\n'), {
        TOKEN: TEST_ADMIN_TOKEN,
        BASE: server.url,
      });
      expect(run.output).not.toMatch(/curl: \(\d+\)/);
      expect(run.code).toBe(0);
      expect(run.output).toContain('{"appended":2,"first":1,"last":2,"replayed":false}');
      expect(run.output).toContain('"sessionId":"tour"');
      expect(run.output).toMatch(/"state":"done".*"result":\{"compacted":true,"upTo":6,/);

      const stored = (await (await server.request('/api/sessions/tour')).json()) as {
        messages: number;
      };
      expect(stored.messages).toBe(26);
    }, 60_000);
  });
});
