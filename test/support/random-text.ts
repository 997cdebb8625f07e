import { seededRandom } from './seeded-random';

/** `length` characters (code points) drawn from `alphabet` by a seeded generator. */
export function randomText(length: number, alphabet: string, seed = 7): string {
  const next = seededRandom(seed);
  const characters = [...alphabet];
  return Array.from({ length }, () => characters[Math.floor(next() * characters.length)]).join('');
}

/** `length` base64 characters of seeded random bytes. */
export function randomBase64(length: number, seed = 5): string {
  const next = seededRandom(seed);
  const bytes = Buffer.alloc(Math.ceil((length * 3) / 4));
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
  return bytes.toString('base64').slice(0, length);
}

const MB = 1 << 20;
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const EMOJI = Array.from({ length: 80 }, (_, i) => String.fromCodePoint(0x1f600 + i)).join('');

/**
 * A megabyte of text whose pieces never repeat, or one run of a character (the split pattern's
 * longest pieces), by kind.
 */
export const MEGABYTE_TEXTS: Record<string, () => string> = {
  'random letters': () => randomText(MB, LETTERS),
  'one repeated character': () => 'q'.repeat(MB),
  spaces: () => ' '.repeat(MB),
  'base64 of random bytes': () => randomBase64(MB),
  'random emoji': () => randomText(MB / 2, EMOJI, 11),
};
