/**
 * What a user gets from `npm install`: packs `@agent-memory/memory` (its `prepack` builds it),
 * installs the tarball with a plain `npm install` into a Nest 12 app outside the repo (the repo
 * itself is on Nest 11) that also depends on `ai` 7, npm's current major of an optional peer,
 * type-checks the app with `tsc --strict` against the published `.d.ts` only (with the `nodenext`
 * and `bundler` resolutions and `skipLibCheck: false`, and the older `node10`; `node16` cannot
 * import Nest 12, which is an ECMAScript module, from this CommonJS app), then runs it on the JSON-file backend and on PostgreSQL:
 * turns saved and read back through an injected `MemoryService`, and a health check.
 *
 * (`@types/json-schema` is in the app's dev dependencies because `ai` 7's declarations import
 * `json-schema` without depending on its types, which `skipLibCheck: false` reports.)
 *
 * The app's `node_modules` is cached under the OS temp folder, keyed by its dependency list, so
 * a second run only reinstalls the tarball.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NPM, packWorkspace, REPO_ROOT, run, type PackResult } from '../support/npm-pack';
import { TestSchemas } from '../support/postgres';

const APP_TEMPLATE = join(__dirname, 'app');

/** The consumer app's `node_modules`, installed once per dependency list; returns its folder. */
function cachedInstall(tarball: string): string {
  const manifest = JSON.parse(readFileSync(join(APP_TEMPLATE, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const key = createHash('sha256')
    .update(JSON.stringify([manifest.dependencies, manifest.devDependencies, process.version]))
    .digest('hex')
    .slice(0, 16);
  const cache = join(tmpdir(), 'agent-memory-consumer-cache', key);
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, 'package.json'), JSON.stringify(manifest, null, 2));
  if (!existsSync(join(cache, 'node_modules', '@nestjs', 'core'))) {
    run(NPM, ['install', '--no-package-lock'], cache);
  }
  // The package under test, as a user installs it: from the tarball, with its own dependencies.
  cpSync(tarball, join(cache, 'agent-memory-memory.tgz'));
  run(NPM, ['install', '--no-save', '--no-package-lock', './agent-memory-memory.tgz'], cache);
  return cache;
}

/** Starts a built app; resolves with its URL once it prints it (`listening` matches it). */
function startApp(
  dir: string,
  env: Record<string, string>,
  main = 'dist/main.js',
  listening = /listening on (\S+)/,
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [main], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = listening.exec(output);
      if (match) resolve({ url: match[1]!, child, output: () => output });
    });
    child.once('exit', (code) => reject(new Error(`the app exited with ${code}:\n${output}`)));
  });
}

/** SIGTERM; resolves once it exited. Nest's shutdown hooks close the app, then re-raise the signal. */
function stopApp(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`));
    child.kill('SIGTERM');
  });
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

const workDir = mkdtempSync(join(tmpdir(), 'agent-memory-consumer-'));
const schemas = new TestSchemas('consumer');
let packedOnce: PackResult | null = null;

/** `npm pack` of the library, once per file (its `prepack` builds `libs/memory/dist`). */
function pack(): PackResult {
  packedOnce ??= packWorkspace('@agent-memory/memory', workDir);
  return packedOnce;
}

afterAll(async () => {
  await schemas.cleanup();
  rmSync(workDir, { recursive: true, force: true });
});

describe('the packed package in a fresh Nest 12 app', () => {
  let appDir: string;
  let packed: PackResult;

  beforeAll(() => {
    packed = pack();
    const cache = cachedInstall(join(workDir, packed!.filename));
    appDir = join(workDir, 'app');
    cpSync(APP_TEMPLATE, appDir, { recursive: true });
    symlinkSync(join(cache, 'node_modules'), join(appDir, 'node_modules'), 'dir');
  }, 600_000);

  it('ships compiled code and declarations, and no sources, specs or test scripts', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'LICENSE',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/postgres/index.d.ts',
        'dist/nats/index.d.ts',
        'dist/health/index.d.ts',
      ]),
    );
    const unexpected = paths.filter(
      (path) =>
        !/^dist\/.+\.(js|d\.ts)$/.test(path) &&
        !['package.json', 'README.md', 'LICENSE'].includes(path),
    );
    expect(unexpected).toEqual([]);
    expect(paths.filter((path) => /spec|testing\/|\.script\.|\.child\./.test(path))).toEqual([]);
  });

  it('explains itself: the MIT licence, where it comes from, and no source map pointing at missing sources', () => {
    const unpacked = join(workDir, 'unpacked');
    mkdirSync(unpacked, { recursive: true });
    run('tar', ['-xzf', join(workDir, packed.filename), '-C', unpacked], workDir);
    const root = join(unpacked, 'package');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8'),
    );
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({
      license: 'MIT',
      repository: { url: expect.stringContaining('github.com/agent-memory/agent-memory') },
      homepage: expect.any(String),
      bugs: { url: expect.any(String) },
    });
    // A map, or a `sourceMappingURL` comment, must lead to a file the package holds.
    const dangling = packed.files.flatMap(({ path }) => {
      if (!path.endsWith('.js')) return [];
      const code = readFileSync(join(root, path), 'utf8');
      const map = /^\/\/# sourceMappingURL=(\S+)\s*$/m.exec(code)?.[1];
      if (map === undefined || map.startsWith('data:')) return [];
      return existsSync(join(root, path, '..', map)) ? [] : [`${path} -> ${map}`];
    });
    expect(dangling).toEqual([]);
  });

  it("installs next to ai 7 (npm's current major) with a plain npm install: no peer conflict", () => {
    const ai = JSON.parse(
      readFileSync(join(appDir, 'node_modules', 'ai', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(ai.version).toMatch(/^7\./);
    const installed = JSON.parse(
      readFileSync(join(appDir, 'node_modules', '@agent-memory', 'memory', 'package.json'), 'utf8'),
    ) as { peerDependencies: Record<string, string> };
    expect(installed.peerDependencies.ai).toContain('^7');
  });

  it("type-checks the AI SDK adapter's sources against ai 7 (Node 20 cannot run ai 7; Node 22 can)", () => {
    // The adapter and the contract it imports, compiled as the library compiles them, with the
    // app's `ai` 7 in place of the repository's `ai` 6.
    const sources = join(appDir, 'ai-sdk-adapter');
    for (const folder of ['core', 'ai-sdk']) {
      cpSync(join(REPO_ROOT, 'libs/memory/src', folder), join(sources, folder), {
        recursive: true,
        filter: (path) => !/\.spec\.ts$|[\\/]testing$/.test(path),
      });
    }
    writeFileSync(
      join(appDir, 'tsconfig.ai-sdk-adapter.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          moduleResolution: 'node10',
          strict: true,
          noImplicitOverride: true,
          noFallthroughCasesInSwitch: true,
          esModuleInterop: true,
          skipLibCheck: true,
          noEmit: true,
          types: ['node'],
        },
        include: ['ai-sdk-adapter/**/*.ts'],
      }),
    );
    expect(existsSync(join(sources, 'ai-sdk', 'model-message.converter.ts'))).toBe(true);
    const tsc = join(appDir, 'node_modules', 'typescript', 'bin', 'tsc');
    // (tsc exits non-zero, and `run` throws with its errors, on any type error.)
    expect(() =>
      run(process.execPath, [tsc, '-p', 'tsconfig.ai-sdk-adapter.json'], appDir),
    ).not.toThrow();
  }, 120_000);

  it('type-checks with tsc --strict against the published declarations (nodenext and bundler with skipLibCheck off; node10 resolves the subpaths too)', () => {
    const tsc = join(appDir, 'node_modules', 'typescript', 'bin', 'tsc');
    run(process.execPath, [tsc, '-p', 'tsconfig.node10.json'], appDir);
    run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], appDir);
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], appDir);
    expect(existsSync(join(appDir, 'dist', 'main.js'))).toBe(true);
  }, 120_000);

  it('migrates PostgreSQL with the packaged agent-memory command (status, migrate, status)', () => {
    const bin = join(appDir, 'node_modules', '.bin', 'agent-memory');
    const table = schemas.nextTable();
    const command = (...args: string[]) =>
      spawnSync(bin, [...args, '--url', schemas.url, '--table', table], {
        cwd: appDir,
        encoding: 'utf8',
      });
    const before = command('status');
    expect(before.status).toBe(3);
    expect(before.stdout).toContain(`memory tables of "${table}": not ready`);
    expect(before.stdout).toMatch(/missing: .*procedure conversation_memory_save_group/);

    const migrate = command('migrate');
    expect(migrate.status).toBe(0);
    expect(migrate.stdout).toMatch(/applied CreateMemoryTables\d+, .*CreateSaveProcedure\d+/);

    const after = command('status');
    expect(after.stdout).toContain(`memory tables of "${table}": ready`);
    expect(after.status).toBe(0);
    expect(command('migrate').stdout).toContain('already up to date');

    const usage = spawnSync(bin, ['migrate'], {
      cwd: appDir,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: '' },
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^agent-memory: no database: pass --url/);
  }, 120_000);

  it.each([
    ['jsonfile', () => ({ MEMORY_DIR: join(workDir, 'sessions') })],
    ['postgres', () => ({ DATABASE_URL: schemas.url, MEMORY_PG_TABLE: schemas.nextTable() })],
  ])(
    'runs on the %s backend: turns saved and read back, health up, clean shutdown',
    async (kind, env) => {
      const app = await startApp(appDir, { MEMORY_BACKEND: kind, ...env() });
      try {
        const post = (text: string) =>
          json(`${app.url}/chat/user-1`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ text }),
          });
        expect(await post('hello')).toEqual({
          status: 201,
          body: { answer: 'heard 0 earlier messages', historyLength: 2 },
        });
        expect(await post('again')).toEqual({
          status: 201,
          body: { answer: 'heard 2 earlier messages', historyLength: 4 },
        });
        const history = await json(`${app.url}/chat/user-1`);
        expect(history.body.map((m: { role: string }) => m.role)).toEqual([
          'user',
          'assistant',
          'user',
          'assistant',
        ]);
        expect((await json(`${app.url}/chat/user-1/chat-completions`)).body).toEqual([
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'echo: hello' },
          { role: 'user', content: 'again' },
          { role: 'assistant', content: 'echo: again' },
        ]);
        const health = await json(`${app.url}/health`);
        expect(health.status).toBe(200);
        expect(health.body.info.memory.status).toBe('up');
        if (kind === 'postgres') expect(health.body.info.memory.table).toBeDefined();
        else expect(health.body.info.memory.kind).toBe(kind);
      } finally {
        expect(['SIGTERM', 'exit 0']).toContain(await stopApp(app.child));
        expect(app.output()).not.toMatch(/error/i);
      }
    },
    60_000,
  );
});

/**
 * The production layout of the Docker image, without Docker: the library's and the API's build
 * output next to `npm ci --omit=dev` of this repository's workspaces (cached under the OS temp
 * folder by lockfile), so nothing from the dev dependencies can be reached.
 */
describe('the production build (the Docker runtime stage)', () => {
  /** The workspace libraries the built apps load by name, each from its own `dist/`. */
  const LIBRARIES = ['libs/memory', 'libs/memory-config'];
  const TSC = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  let runtime: string;

  beforeAll(() => {
    pack(); // builds libs/memory/dist
    // The apps' shared settings as `nest build memory-config` compiles them (same tsconfig).
    run(process.execPath, [TSC, '-p', 'libs/memory-config/tsconfig.lib.json'], REPO_ROOT);
    const manifests = [
      'package.json',
      'package-lock.json',
      ...LIBRARIES.map((library) => `${library}/package.json`),
      'apps/api/package.json',
      'apps/worker/package.json',
    ];
    const key = createHash('sha256')
      .update(manifests.map((file) => readFileSync(join(REPO_ROOT, file), 'utf8')).join('\0'))
      .update(process.version)
      .digest('hex')
      .slice(0, 16);
    runtime = join(tmpdir(), 'agent-memory-runtime-cache', key);
    for (const file of manifests) {
      mkdirSync(join(runtime, file, '..'), { recursive: true });
      cpSync(join(REPO_ROOT, file), join(runtime, file));
    }
    if (!existsSync(join(runtime, 'node_modules', '@nestjs', 'core'))) {
      run(NPM, ['ci', '--omit=dev', '--ignore-scripts'], runtime);
    }
    rmSync(join(runtime, 'dist'), { recursive: true, force: true });
    for (const library of LIBRARIES) {
      rmSync(join(runtime, library, 'dist'), { recursive: true, force: true });
      cpSync(join(REPO_ROOT, library, 'dist'), join(runtime, library, 'dist'), {
        recursive: true,
      });
    }
    // The API as `nest build api` compiles it (same tsconfig), into the runtime folder.
    run(
      process.execPath,
      [TSC, '-p', 'apps/api/tsconfig.app.json', '--outDir', join(runtime, 'dist')],
      REPO_ROOT,
    );
  }, 600_000);

  it('has no dev dependency to lean on', () => {
    for (const dev of ['jest', 'typescript', '@swc-node/register', '@nestjs/testing']) {
      expect([dev, existsSync(join(runtime, 'node_modules', dev))]).toEqual([dev, false]);
    }
    for (const name of ['memory', 'memory-config']) {
      const entry = join(runtime, 'node_modules/@agent-memory', name, 'dist/index.js');
      expect([name, existsSync(entry)]).toEqual([name, true]);
    }
  });

  it('migrates with the migrate command, then serves with MEMORY_PG_ENSURE_SCHEMA=false', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: schemas.url,
      MEMORY_PG_TABLE: schemas.nextTable(),
    };
    const migrate = () =>
      execFileSync(process.execPath, ['dist/apps/api/src/migrate.js'], {
        cwd: runtime,
        env,
        encoding: 'utf8',
      });
    expect(migrate()).toMatch(/applied \S+/);
    expect(migrate()).toMatch(/already up to date/);

    const app = await startApp(
      runtime,
      {
        ...env,
        MEMORY_BACKEND: 'postgres',
        MEMORY_PG_ENSURE_SCHEMA: 'false',
        MEMORY_ADMIN_TOKEN: 'a-token-for-the-production-test',
        PORT: '0',
        NODE_ENV: 'production',
      } as Record<string, string>,
      'dist/apps/api/src/main.js',
      /admin API on (\S+)\/api/,
    );
    try {
      const ready = await json(`${app.url}/health/ready`);
      expect(ready).toMatchObject({ status: 200, body: { status: 'ok' } });
      const saved = await fetch(`${app.url}/api/sessions/prod-1/messages`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer a-token-for-the-production-test',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
        }),
      });
      expect(saved.status).toBeLessThan(300);
    } finally {
      expect(['SIGTERM', 'exit 0']).toContain(await stopApp(app.child));
    }
  }, 120_000);
});
