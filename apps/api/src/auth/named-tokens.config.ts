import { readFileSync } from 'node:fs';
import { ADMIN_ROLES, type AdminRole } from './admin-role';

/** One named token as configured: its name, its role and the SHA-256 of the token, never the token. */
export interface NamedTokenEntry {
  name: string;
  role: AdminRole;
  /** The token's SHA-256 digest (32 bytes), from `sha256:<64 hex digits>`. */
  sha256: Buffer;
}

/** The name `MEMORY_ADMIN_TOKEN` is known by. */
export const SINGLE_ADMIN_TOKEN_NAME = 'admin';

/** Token names: a letter or digit, then letters, digits, `.`, `_` or `-`; at most 64. */
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The only hash accepted: `sha256:` and 64 hex digits (`printf %s "$TOKEN" | sha256sum`). */
const TOKEN_HASH = /^sha256:([0-9a-fA-F]{64})$/;

/** Where a list of entries came from, for error messages (`MEMORY_ADMIN_TOKENS`, or the file). */
interface TokenSource {
  label: string;
  text: string;
}

/** Fields of an entry as written, before they are checked. */
interface RawEntry {
  name?: unknown;
  role?: unknown;
  hash?: unknown;
}

/**
 * Reads the named tokens from the text of `MEMORY_ADMIN_TOKENS` or of the file that
 * `MEMORY_ADMIN_TOKENS_FILE` names. Two spellings: a JSON array of `{ "name", "role", "hash" }`,
 * or one entry a line (`;` separates entries too), `<name> <role> sha256:<hex>`, with blank lines
 * and `#` comments skipped. Adds one line to `problems` per bad entry, naming it and the field.
 */
export function parseNamedTokens(source: TokenSource, problems: string[]): NamedTokenEntry[] {
  const raw = rawEntries(source, problems);
  const entries: NamedTokenEntry[] = [];
  raw.forEach((entry, index) => {
    const where = `${source.label} entry ${index + 1}${typeof entry.name === 'string' ? ` ("${entry.name}")` : ''}`;
    const checked = checkEntry(entry, where, problems);
    if (checked) entries.push(checked);
  });
  return entries;
}

function rawEntries(source: TokenSource, problems: string[]): RawEntry[] {
  const text = source.text.trim();
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      problems.push(`${source.label} is not valid JSON: ${(error as Error).message}`);
      return [];
    }
    if (!Array.isArray(parsed)) {
      problems.push(`${source.label} must be a JSON array of { "name", "role", "hash" }`);
      return [];
    }
    return parsed.map((item: unknown) =>
      item !== null && typeof item === 'object' && !Array.isArray(item)
        ? (item as RawEntry)
        : { name: undefined, role: undefined, hash: undefined },
    );
  }
  return text
    .split(/[\n;]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const [name, role, hash, ...rest] = line.split(/\s+/);
      return rest.length > 0
        ? { name, role, hash: `${hash} ${rest.join(' ')}` }
        : { name, role, hash };
    });
}

function checkEntry(entry: RawEntry, where: string, problems: string[]): NamedTokenEntry | null {
  const before = problems.length;
  const { name, role, hash } = entry;
  if (typeof name !== 'string' || !TOKEN_NAME.test(name)) {
    problems.push(
      `${where}: "name" must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  if (typeof role !== 'string' || !(ADMIN_ROLES as readonly string[]).includes(role)) {
    problems.push(`${where}: "role" must be one of ${ADMIN_ROLES.join(', ')}`);
  }
  const digest = typeof hash === 'string' ? TOKEN_HASH.exec(hash) : null;
  if (!digest) {
    problems.push(
      `${where}: "hash" must be "sha256:" and 64 hex digits (the token's SHA-256, never the token: printf %s "$TOKEN" | sha256sum)`,
    );
  }
  if (problems.length > before || !digest) return null;
  return { name: name as string, role: role as AdminRole, sha256: Buffer.from(digest[1]!, 'hex') };
}

/**
 * The named tokens of `MEMORY_ADMIN_TOKENS` (inline) and `MEMORY_ADMIN_TOKENS_FILE` (a path),
 * both read when both are set. Names must be unique, and `admin` is taken when
 * `MEMORY_ADMIN_TOKEN` is set. Problems go to `problems`, one line each.
 */
export function readNamedTokens(
  inline: string | null,
  filePath: string | null,
  singleTokenSet: boolean,
  problems: string[],
): NamedTokenEntry[] {
  const sources: TokenSource[] = [];
  if (inline !== null) sources.push({ label: 'MEMORY_ADMIN_TOKENS', text: inline });
  if (filePath !== null) {
    try {
      sources.push({
        label: `MEMORY_ADMIN_TOKENS_FILE (${filePath})`,
        text: readFileSync(filePath, 'utf8'),
      });
    } catch (error) {
      problems.push(
        `MEMORY_ADMIN_TOKENS_FILE=${JSON.stringify(filePath)} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  const entries: NamedTokenEntry[] = [];
  for (const source of sources) {
    const before = problems.length;
    const parsed = parseNamedTokens(source, problems);
    if (parsed.length === 0 && problems.length === before) {
      problems.push(
        `${source.label} lists no tokens: give a JSON array or "<name> <role> sha256:<hex>" lines`,
      );
    }
    entries.push(...parsed);
  }
  const taken = new Set(singleTokenSet ? [SINGLE_ADMIN_TOKEN_NAME] : []);
  for (const entry of entries) {
    if (taken.has(entry.name)) {
      problems.push(
        entry.name === SINGLE_ADMIN_TOKEN_NAME && singleTokenSet
          ? `named token "admin": the name is taken by MEMORY_ADMIN_TOKEN; name it otherwise`
          : `named token "${entry.name}" is listed twice; names must be unique`,
      );
    }
    taken.add(entry.name);
  }
  const digests = new Set<string>();
  for (const entry of entries) {
    const hex = entry.sha256.toString('hex');
    if (digests.has(hex))
      problems.push(
        `named token "${entry.name}": its hash is another entry's too; give each its own token`,
      );
    digests.add(hex);
  }
  return entries;
}
