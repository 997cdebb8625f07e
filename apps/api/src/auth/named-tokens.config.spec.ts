import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigValidationError, parseApiConfig } from '../config/api-config';
import { AdminToken } from './admin-token';
import { AdminTokens } from './admin-tokens';

const hashOf = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;

const VIEWER = 'viewer-token-0123456789abcdef';
const OPERATOR = 'operator-token-0123456789abcdef';

/** The problems `parseApiConfig` reports for `env`, or [] when it accepts it. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    parseApiConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
}

describe('named admin tokens (MEMORY_ADMIN_TOKENS, MEMORY_ADMIN_TOKENS_FILE)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-tokens-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a JSON array and identifies each token by its hash, never keeping the token', () => {
    const config = parseApiConfig({
      MEMORY_ADMIN_TOKENS: JSON.stringify([
        { name: 'dash', role: 'viewer', hash: hashOf(VIEWER) },
        {
          name: 'oncall',
          role: 'operator',
          hash: hashOf(OPERATOR).toUpperCase().replace('SHA256', 'sha256'),
        },
      ]),
    });
    expect(config.namedTokens.map(({ name, role }) => ({ name, role }))).toEqual([
      { name: 'dash', role: 'viewer' },
      { name: 'oncall', role: 'operator' },
    ]);
    expect(JSON.stringify(config)).not.toContain(VIEWER);
    const tokens = new AdminTokens(config.namedTokens, null);
    expect(tokens.identify(VIEWER)).toEqual({ name: 'dash', role: 'viewer' });
    expect(tokens.identify(OPERATOR)).toEqual({ name: 'oncall', role: 'operator' });
    expect(tokens.identify(hashOf(VIEWER))).toBeNull();
    expect(tokens.identify(`${VIEWER} `)).toBeNull();
  });

  it('reads "<name> <role> sha256:<hex>" lines from a file, with comments, next to MEMORY_ADMIN_TOKEN', () => {
    const file = join(dir, 'tokens.txt');
    writeFileSync(
      file,
      `# who may look\ndash viewer ${hashOf(VIEWER)}\n\n  oncall   operator ${hashOf(OPERATOR)}  # pager\n`,
    );
    const single = 'single-admin-token-0123456789';
    const config = parseApiConfig({ MEMORY_ADMIN_TOKENS_FILE: file, MEMORY_ADMIN_TOKEN: single });
    const tokens = new AdminTokens(config.namedTokens, new AdminToken(config.adminToken));
    expect(tokens.size).toBe(3);
    expect(tokens.identify(single)).toEqual({ name: 'admin', role: 'admin' });
    expect(tokens.identify(OPERATOR)).toEqual({ name: 'oncall', role: 'operator' });
    expect(tokens.identify('nobody-0123456789abcdef')).toBeNull();
  });

  it('takes ";" between inline entries', () => {
    const config = parseApiConfig({
      MEMORY_ADMIN_TOKENS: `dash viewer ${hashOf(VIEWER)}; boss admin ${hashOf(OPERATOR)}`,
    });
    expect(config.namedTokens.map((entry) => entry.name)).toEqual(['dash', 'boss']);
  });

  it('refuses bad entries at start, naming the entry and the field', () => {
    const problems = problemsOf({
      MEMORY_ADMIN_TOKEN: 'single-admin-token-0123456789',
      MEMORY_ADMIN_TOKENS: JSON.stringify([
        { name: 'dash', role: 'viewer', hash: hashOf(VIEWER) },
        { name: 'bad name!', role: 'viewer', hash: hashOf('a') },
        { name: 'boss', role: 'root', hash: hashOf('b') },
        { name: 'plain', role: 'viewer', hash: VIEWER },
        { name: 'short', role: 'viewer', hash: 'sha256:abc' },
        { name: 'dash', role: 'admin', hash: hashOf('c') },
        { name: 'admin', role: 'viewer', hash: hashOf('d') },
        'not-an-object',
      ]),
    });
    expect(problems).toEqual([
      expect.stringMatching(/^MEMORY_ADMIN_TOKENS entry 2 \("bad name!"\): "name" must be/),
      expect.stringMatching(
        /^MEMORY_ADMIN_TOKENS entry 3 \("boss"\): "role" must be one of viewer, operator, admin/,
      ),
      expect.stringMatching(
        /^MEMORY_ADMIN_TOKENS entry 4 \("plain"\): "hash" must be "sha256:" and 64 hex digits/,
      ),
      expect.stringMatching(/^MEMORY_ADMIN_TOKENS entry 5 \("short"\): "hash" must be/),
      expect.stringMatching(/^MEMORY_ADMIN_TOKENS entry 8: "name" must be/),
      expect.stringMatching(/^MEMORY_ADMIN_TOKENS entry 8: "role" must be/),
      expect.stringMatching(/^MEMORY_ADMIN_TOKENS entry 8: "hash" must be/),
      'named token "dash" is listed twice; names must be unique',
      'named token "admin": the name is taken by MEMORY_ADMIN_TOKEN; name it otherwise',
    ]);
    expect(problems.join('\n')).not.toContain(VIEWER);
  });

  it('refuses a file it cannot read, JSON that is not a list, an empty list and a hash given twice', () => {
    expect(problemsOf({ MEMORY_ADMIN_TOKENS_FILE: join(dir, 'missing.txt') })).toEqual([
      `MEMORY_ADMIN_TOKENS_FILE=${JSON.stringify(join(dir, 'missing.txt'))} cannot be read: ENOENT`,
    ]);
    expect(problemsOf({ MEMORY_ADMIN_TOKENS: '[{"name": ' })).toEqual([
      expect.stringMatching(/^MEMORY_ADMIN_TOKENS is not valid JSON/),
    ]);
    expect(problemsOf({ MEMORY_ADMIN_TOKENS: '# nobody yet\n' })).toEqual([
      expect.stringMatching(/^MEMORY_ADMIN_TOKENS lists no tokens/),
    ]);
    expect(
      problemsOf({ MEMORY_ADMIN_TOKENS: `a viewer ${hashOf(VIEWER)}\nb admin ${hashOf(VIEWER)}` }),
    ).toEqual(['named token "b": its hash is another entry\'s too; give each its own token']);
  });
});
