/**
 * The split patterns of OpenAI's BPE encodings, as `tiktoken` defines them (`pat_str` in its
 * encoder files), written for JavaScript's regular expressions so that they cut exactly where the
 * originals (Rust's `regex` syntax) do; `token-pieces.ts` cuts text along them. Two differences:
 * - `\s` there is Unicode's White_Space (with U+0085, without U+FEFF); JavaScript's `\s` is not,
 *   so it is written `\p{White_Space}` (and `\S` as `\P{White_Space}`);
 * - the o200k/cl100k originals use `(?i:…)`, which Node 20 lacks: the contractions spell out every
 *   case, including `ſ` (U+017F), which case-folds to `s`.
 * `token-split-patterns.spec.ts` checks each against `tiktoken`'s own `pat_str`, and
 * `token-counter.spec.ts` compares counts with `tiktoken`'s on text made of every kind of
 * character these patterns tell apart.
 */

const SPACE = String.raw`\p{White_Space}`;
const NOT_SPACE = String.raw`\P{White_Space}`;
const WHITESPACE_TAIL = [`${SPACE}*[\\r\\n]+`, `${SPACE}+(?!${NOT_SPACE})`, `${SPACE}+`];

/** r50k_base and p50k_base (GPT-2, GPT-3): contractions in lower case only. */
export const R50K_SPLIT = new RegExp(
  [
    `'s|'t|'re|'ve|'m|'ll|'d`,
    String.raw` ?\p{L}+`,
    String.raw` ?\p{N}+`,
    String.raw` ?[^${SPACE}\p{L}\p{N}]+`,
    `${SPACE}+(?!${NOT_SPACE})`,
    `${SPACE}+`,
  ].join('|'),
  'gu',
);

const CONTRACTION = String.raw`(?:'(?:[sSſ]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))`;

/** cl100k_base (GPT-3.5, GPT-4). */
export const CL100K_SPLIT = new RegExp(
  [
    CONTRACTION,
    String.raw`[^\r\n\p{L}\p{N}]?\p{L}+`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^${SPACE}\p{L}\p{N}]+[\r\n]*`,
    ...WHITESPACE_TAIL,
  ].join('|'),
  'gu',
);

const UPPER = String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`;
const LOWER = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`;

/** o200k_base (GPT-4o and later). */
export const O200K_SPLIT = new RegExp(
  [
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}*${LOWER}+${CONTRACTION}?`,
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}+${LOWER}*${CONTRACTION}?`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^${SPACE}\p{L}\p{N}]+[\r\n/]*`,
    ...WHITESPACE_TAIL,
  ].join('|'),
  'gu',
);
