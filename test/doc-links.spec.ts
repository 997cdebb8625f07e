/**
 * The docs point where they say: every relative link of the repository's markdown (README.md,
 * CHANGELOG.md, docs/*.md and the READMEs next to the code) reaches a file that exists, and a link
 * to a heading (`file.md#anchor`, `#anchor`) reaches a heading of that file, slugged as GitHub
 * slugs it. No document names a path outside the repository (`../…` in its text), which a clone
 * would not have. And nothing in the repository cites the contract file the repository does not
 * hold: sources and docs cite `docs/…` instead.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const REPO_ROOT = join(__dirname, '..');

/** Folders that hold no source of the repository: dependencies, builds, local data. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'coverage', 'data']);

/** Every file of the repository (paths relative to its root), skipping what it does not hold. */
function repositoryFiles(dir = REPO_ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return SKIPPED_DIRS.has(entry.name) || entry.name.startsWith('.tmp')
        ? []
        : repositoryFiles(path);
    }
    return entry.isFile() ? [relative(REPO_ROOT, path)] : [];
  });
}

/** The markdown files whose links are checked. */
const DOCUMENTS = repositoryFiles().filter((path) => path.endsWith('.md'));

/** `text` without its fenced code blocks, line count kept. */
function withoutFencedBlocks(text: string): string {
  return text.replace(/^( *)(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, (block) =>
    block.replace(/[^\n]/g, ''),
  );
}

/** `text` without its fenced code blocks and inline code spans, line count kept. */
function withoutCode(text: string): string {
  return withoutFencedBlocks(text).replace(/`[^`\n]*`/g, '``');
}

/**
 * The paths a document's text names outside the repository: `../…` in its prose and inline code,
 * which the docs write from the repository's root, so `../` leaves it. Link targets are resolved
 * from the document instead (checked with the other links); fenced blocks are commands run in
 * the reader's own folders (`mkdir -p ../my-app/vendor`), so they are not read.
 */
function pathsOutsideRepository(document: string, text: string): string[] {
  const prose = withoutFencedBlocks(text)
    .replace(/\]\([^)\n]*\)/g, ']()')
    .replace(/^( {0,3}\[[^\]]+\]:).*$/gm, '$1');
  return [...prose.matchAll(/(?<![\w./-])\.\.\/[^\s`'"),;]*/g)].map(
    (match) => `${document}:${prose.slice(0, match.index).split('\n').length} ${match[0]}`,
  );
}

interface Link {
  document: string;
  line: number;
  target: string;
}

/** The relative links of a markdown file: inline links and images, and reference definitions. */
function relativeLinks(document: string): Link[] {
  const text = withoutCode(readFileSync(join(REPO_ROOT, document), 'utf8'));
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  const definitions = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm)];
  return [...inline, ...definitions]
    .map((match) => ({
      document,
      line: text.slice(0, match.index).split('\n').length,
      target: match[1]!,
    }))
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * The anchors GitHub gives a markdown file's headings: the heading's text without its markup,
 * lower-cased, punctuation dropped, each space a hyphen; a repeated slug gets `-1`, `-2`, ….
 */
function headingAnchors(path: string): Set<string> {
  const text = readFileSync(path, 'utf8').replace(
    /^( *)(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm,
    '',
  );
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = heading!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*~]/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** What is wrong with one link, or null when it reaches its file (and heading). */
function brokenReason({ document, target }: Link): string | null {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = pathPart
    ? resolve(REPO_ROOT, dirname(document), decodeURIComponent(pathPart))
    : join(REPO_ROOT, document);
  if (!path.startsWith(REPO_ROOT)) return 'points outside the repository';
  if (!existsSync(path)) return 'no such file';
  if (anchor === undefined || !path.endsWith('.md') || statSync(path).isDirectory()) return null;
  return headingAnchors(path).has(decodeURIComponent(anchor).toLowerCase())
    ? null
    : 'no such heading';
}

describe('documentation links', () => {
  it('reads the README, the changelog, docs/ and the READMEs next to the code', () => {
    expect(DOCUMENTS).toEqual(
      expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/architecture.md']),
    );
    expect(DOCUMENTS.flatMap(relativeLinks).length).toBeGreaterThan(50);
  });

  it('every relative link reaches an existing file and heading', () => {
    const broken = DOCUMENTS.flatMap(relativeLinks).flatMap((link) => {
      const reason = brokenReason(link);
      return reason ? [`${link.document}:${link.line} ${link.target}: ${reason}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('no document names a path outside the repository, which a clone would not have', () => {
    const outside = DOCUMENTS.flatMap((document) =>
      pathsOutsideRepository(document, readFileSync(join(REPO_ROOT, document), 'utf8')),
    );
    expect(outside).toEqual([]);
  });

  it('tells a path outside the repository from a link, a command and a path inside', () => {
    const text = [
      'Run `../shared/scripts/install.sh` first,',
      'or ../tools/setup.sh, as [the guide](../../docs/admin-api.md) says;',
      '[guide]: ../../docs/admin-api.md',
      'see `scripts/install-pgvector.sh` and docs/../README.md.',
      '```bash',
      'mkdir -p ../my-app/vendor',
      '```',
    ].join('\n');
    expect(pathsOutsideRepository('apps/api/README.md', text)).toEqual([
      'apps/api/README.md:1 ../shared/scripts/install.sh',
      'apps/api/README.md:2 ../tools/setup.sh',
    ]);
  });

  it('tells a broken link from a good one', () => {
    const link = (target: string): Link => ({ document: 'README.md', line: 1, target });
    expect(brokenReason(link('docs/operations.md#health-probes'))).toBeNull();
    expect(brokenReason(link('#five-minute-tour'))).toBeNull();
    expect(brokenReason(link('docs/no-such-file.md'))).toBe('no such file');
    expect(brokenReason(link('docs/operations.md#no-such-heading'))).toBe('no such heading');
    expect(brokenReason(link('../outside.md'))).toBe('points outside the repository');
  });
});

describe('citations', () => {
  /** The contract file's name, or a section sign after it, as the old citations wrote them. */
  const citation = /\bSPEC(?:\.md|\s*§|:)/;

  it('recognises a citation of the contract file', () => {
    for (const cited of ['(SPEC §7)', 'see SPEC.md', '(SPEC: entry points)', 'SPEC§5']) {
      expect(cited).toMatch(citation);
    }
    for (const plain of ['INSPECT', 'a spec file', 'TEST_SPEC: 1', 'SPECIAL']) {
      expect(plain).not.toMatch(citation);
    }
  });

  it('no file of the repository cites the contract file it does not hold', () => {
    const thisFile = relative(REPO_ROOT, __filename); // its examples above are citations
    const citing = repositoryFiles().filter((path) => {
      if (path === thisFile) return false;
      if (statSync(join(REPO_ROOT, path)).size > 4 * 1024 * 1024) return false;
      const content = readFileSync(join(REPO_ROOT, path));
      return !content.subarray(0, 8000).includes(0) && citation.test(content.toString('utf8'));
    });
    expect(citing).toEqual([]);
  });
});
