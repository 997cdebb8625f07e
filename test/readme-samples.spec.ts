/**
 * Every TypeScript sample in the README's "The Nest module" section type-checks against the
 * package's sources: each block is compiled as a module of its own after a prelude that imports
 * what the samples use and the block does not import itself.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const REPO_ROOT = join(__dirname, '..');

const PRELUDE = `
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { InjectMemory, jsonFileBackend, MemoryModule, MemoryService } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { MemoryBackendHealthIndicator, MemoryHealthModule } from '@agent-memory/memory/health';
`;

/** The prelude's import lines that import nothing the block imports itself. */
function preludeFor(block: string): string {
  const ownImports = block
    .split('\n')
    .filter((line) => /^import |^ {2}\w+,$|^} from /.test(line))
    .join('\n');
  return PRELUDE.split('\n')
    .filter((line) => {
      const names = /\{([^}]*)\}/.exec(line)?.[1]?.split(',') ?? [];
      return !names.some((name) => new RegExp(`\\b${name.trim()}\\b`).test(ownImports));
    })
    .join('\n');
}

/** The ```ts blocks of the section, with the indentation of list items removed. */
function samples(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## The Nest module'),
    readme.indexOf('## The admin server'),
  );
  return [...section.matchAll(/^( *)```ts\n([\s\S]*?)^\1```/gm)].map(([, indent, body]) =>
    body!
      .split('\n')
      .map((line) => line.slice(indent!.length))
      .join('\n'),
  );
}

describe('README samples', () => {
  it('type-check, each as a module of its own', () => {
    const blocks = samples();
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const dir = mkdtempSync(join(REPO_ROOT, '.tmp-readme-'));
    try {
      const files = blocks.map((block, i) => {
        const file = join(dir, `sample-${i}.ts`);
        writeFileSync(file, `${preludeFor(block)}\n${block}\nexport {};\n`);
        return file;
      });
      const config = ts.getParsedCommandLineOfConfigFile(
        join(REPO_ROOT, 'tsconfig.json'),
        {},
        { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
      )!;
      const program = ts.createProgram(files, {
        ...config.options,
        noEmit: true,
        noUnusedLocals: false,
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file && files.includes(d.file.fileName))
        .map(
          (d) =>
            `${d.file!.fileName.split('/').pop()}:${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
        );
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
