import { readFileSync } from 'node:fs';
import { CL100K_SPLIT, O200K_SPLIT, R50K_SPLIT } from './token-split-patterns';

/**
 * `tiktoken`'s pattern rewritten by the two rules `token-split-patterns.ts` documents: `\s` and
 * `\S` as Unicode's White_Space, and `(?i:…)` contractions spelled out in every case.
 */
function rewritten(patStr: string): string {
  const spelled: Record<string, string> = {
    s: '[sSſ]',
    t: '[tT]',
    re: '[rR][eE]',
    ve: '[vV][eE]',
    m: '[mM]',
    ll: '[lL][lL]',
    d: '[dD]',
  };
  return patStr
    .replace(/\(\?i:((?:'[a-z]+\|?)+)\)/g, (_, list: string) => {
      const cases = list.split('|').map((word) => spelled[word.slice(1)]);
      return `(?:'(?:${cases.join('|')}))`;
    })
    .replace(/\\s/g, String.raw`\p{White_Space}`)
    .replace(/\\S/g, String.raw`\P{White_Space}`);
}

const patStr = (encoding: string): string =>
  (
    JSON.parse(readFileSync(require.resolve(`tiktoken/encoders/${encoding}.json`), 'utf8')) as {
      pat_str: string;
    }
  ).pat_str;

describe('the split patterns', () => {
  it.each([
    ['o200k_base', O200K_SPLIT],
    ['cl100k_base', CL100K_SPLIT],
    ['r50k_base', R50K_SPLIT],
    ['p50k_base', R50K_SPLIT],
  ])('%s is tiktoken’s own pattern, written for JavaScript', (encoding, pattern) => {
    expect(pattern.source).toBe(rewritten(patStr(encoding)));
    expect(pattern.flags).toBe('gu');
  });
});
