import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '../../..');

/** The packages a plain Node process has loaded after requiring `entry` (jest's registry would hide this). */
function packagesLoadedBy(entry: string): string[] {
  const script = `
    require(${JSON.stringify(entry)});
    const names = Object.keys(require.cache)
      .map((path) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(path)?.[1])
      .filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  const out = execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

/** The drivers a user installs only for the backend or feature that needs them. */
const OPTIONAL = ['pg', 'typeorm', 'nats', '@nestjs/microservices', '@nestjs/terminus'];

describe('entry points', () => {
  it('the core entry loads none of the optional drivers', () => {
    const loaded = packagesLoadedBy('./libs/memory/src/index.ts');
    expect(loaded).toContain('@nestjs/common');
    expect(loaded.filter((name) => OPTIONAL.includes(name))).toEqual([]);
  }, 30_000);

  it('/health loads Terminus but no database or broker driver', () => {
    const loaded = packagesLoadedBy('./libs/memory/src/health/index.ts');
    expect(loaded).toContain('@nestjs/terminus');
    // (Terminus itself requires `@nestjs/microservices` when it is installed.)
    expect(loaded.filter((name) => ['pg', 'typeorm', 'nats'].includes(name))).toEqual([]);
  }, 30_000);

  it('/postgres and /nats load their own driver and not the other', () => {
    const postgres = packagesLoadedBy('./libs/memory/src/postgres/index.ts');
    expect(postgres).toContain('typeorm'); // (TypeORM loads `pg` when it connects)
    expect(postgres).not.toContain('nats');
    const nats = packagesLoadedBy('./libs/memory/src/nats/index.ts');
    expect(nats).toContain('nats');
    expect(nats).not.toContain('typeorm');
    expect(nats).not.toContain('pg');
  }, 30_000);

  it('the agent SDKs load only with their own entry point', () => {
    const SDKS = ['ai', '@ai-sdk/provider-utils', '@langchain/core', 'openai', '@openai/agents'];
    expect(packagesLoadedBy('./libs/memory/src/index.ts').filter((n) => SDKS.includes(n))).toEqual(
      [],
    );
    expect(
      packagesLoadedBy('./libs/memory/src/openai/index.ts').filter((n) => SDKS.includes(n)),
    ).toEqual([]);
    // The AI SDK's converters need no SDK code: `ai` loads when a chat is saved.
    expect(
      packagesLoadedBy('./libs/memory/src/ai-sdk/index.ts').filter((n) => SDKS.includes(n)),
    ).toEqual([]);
    expect(packagesLoadedBy('./libs/memory/src/langchain/index.ts')).toContain('@langchain/core');
    // The Agents session uses only the SDK's types: the SDK is the user's, loaded by their run().
    expect(
      packagesLoadedBy('./libs/memory/src/openai-agents/index.ts').filter((n) => SDKS.includes(n)),
    ).toEqual([]);
  }, 60_000);

  it('the MCP SDK loads only with /mcp', () => {
    const MCP = ['@modelcontextprotocol/sdk', 'zod'];
    expect(packagesLoadedBy('./libs/memory/src/index.ts').filter((n) => MCP.includes(n))).toEqual(
      [],
    );
    expect(
      packagesLoadedBy('./libs/memory/src/rag/index.ts').filter((n) => MCP.includes(n)),
    ).toEqual([]);
    const mcp = packagesLoadedBy('./libs/memory/src/mcp/index.ts');
    expect(mcp).toContain('@modelcontextprotocol/sdk');
    expect(mcp.filter((n) => ['pg', 'typeorm', 'nats'].includes(n))).toEqual([]);
  }, 60_000);

  it('LangGraph loads only with /langgraph, and no database or broker driver with it', () => {
    const LANGGRAPH = ['@langchain/langgraph-checkpoint', '@langchain/langgraph'];
    expect(
      packagesLoadedBy('./libs/memory/src/index.ts').filter((n) => LANGGRAPH.includes(n)),
    ).toEqual([]);
    const langgraph = packagesLoadedBy('./libs/memory/src/langgraph/index.ts');
    expect(langgraph).toContain('@langchain/langgraph-checkpoint');
    expect(langgraph.filter((n) => ['pg', 'typeorm', 'nats'].includes(n))).toEqual([]);
  }, 60_000);

  it("the package's exports map names every entry point's source folder", () => {
    const manifest = JSON.parse(
      readFileSync(join(REPO_ROOT, 'libs/memory/package.json'), 'utf8'),
    ) as { exports: Record<string, { types: string; default: string } | string>; files: string[] };
    expect(manifest.files).toEqual(['dist', 'LICENSE']);
    const entries = Object.entries(manifest.exports).filter(([key]) => key !== './package.json');
    expect(entries.map(([key]) => key).sort()).toEqual(
      [
        '.',
        './health',
        './nats',
        './observability',
        './postgres',
        './rag',
        './ai-sdk',
        './openai',
        './langchain',
        './openai-agents',
        './mcp',
        './langgraph',
      ].sort(),
    );
    for (const [key, target] of entries) {
      const { types, default: js } = target as { types: string; default: string };
      const folder = key === '.' ? '' : `${key.slice(2)}/`;
      expect(js).toBe(`./dist/${folder}index.js`);
      expect(types).toBe(`./dist/${folder}index.d.ts`);
      expect(existsSync(join(REPO_ROOT, 'libs/memory/src', folder, 'index.ts'))).toBe(true);
    }
  });

  it("the package's README names every entry point and the command", () => {
    const manifest = JSON.parse(
      readFileSync(join(REPO_ROOT, 'libs/memory/package.json'), 'utf8'),
    ) as { exports: Record<string, unknown>; bin: Record<string, string> };
    const readme = readFileSync(join(REPO_ROOT, 'libs/memory/README.md'), 'utf8');
    const named = Object.keys(manifest.exports)
      .filter((key) => key !== './package.json')
      .map((key) => `@agent-memory/memory${key.slice(1)}`);
    expect(named).toContain('@agent-memory/memory');
    expect(named.filter((entry) => !readme.includes(`\`${entry}\``))).toEqual([]);
    expect(Object.keys(manifest.bin)).toEqual(['agent-memory']);
    expect(readme).toContain('`agent-memory`');
  });
});
