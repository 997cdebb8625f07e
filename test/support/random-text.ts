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

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const EMOJI = Array.from({ length: 80 }, (_, i) => String.fromCodePoint(0x1f600 + i)).join('');
/** Twenty common Chinese characters, three UTF-8 bytes each. */
const CJK = '的一是不了人我在有他这为之大来以个中上们';

/**
 * Texts of about `bytes` UTF-8 bytes (the size a request body gives a message) whose pieces never
 * repeat, or that are one run of a character (the split pattern's longest pieces), by kind.
 */
export const PATHOLOGICAL_TEXTS: Record<string, (bytes: number) => string> = {
  'random letters': (bytes) => randomText(bytes, LETTERS),
  'one repeated character': (bytes) => 'q'.repeat(bytes),
  spaces: (bytes) => ' '.repeat(bytes),
  'base64 of random bytes': (bytes) => randomBase64(bytes),
  'random emoji': (bytes) => randomText(Math.floor(bytes / 4), EMOJI, 11),
  'CJK without punctuation': (bytes) => randomText(Math.floor(bytes / 3), CJK, 13),
};
