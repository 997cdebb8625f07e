/**
 * The split patterns of OpenAI's BPE encodings (from `tiktoken`'s encoding definitions), written
 * for JavaScript: `tiktoken` applies them inside WebAssembly and does not export them, and the
 * o200k/cl100k originals use `(?i:…)`, which Node 20's regular expressions lack, so the
 * contractions spell out both cases. `token-chunks.ts` cuts text along the same pieces.
 */

/** r50k_base and p50k_base (GPT-2, GPT-3). */
export const R50K_SPLIT =
  /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

const CONTRACTION = String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`;

/** cl100k_base (GPT-3.5, GPT-4). */
export const CL100K_SPLIT = new RegExp(
  String.raw`${CONTRACTION}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s`,
  'gu',
);

const UPPER = String.raw`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`;
const LOWER = String.raw`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`;

/** o200k_base (GPT-4o and later). */
export const O200K_SPLIT = new RegExp(
  [
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}*${LOWER}+(?:${CONTRACTION})?`,
    String.raw`[^\r\n\p{L}\p{N}]?${UPPER}+${LOWER}*(?:${CONTRACTION})?`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
    String.raw`\s*[\r\n]+`,
    String.raw`\s+(?!\S)`,
    String.raw`\s+`,
  ].join('|'),
  'gu',
);
