import { randomText } from '@agent-memory/test-support/random-text';
import { MAX_PIECE_BYTES, MAX_PIECE_CHARS, TextPieces, WINDOW_CHARS } from './token-pieces';
import { O200K_SPLIT } from './token-split-patterns';

const piecesOf = (text: string): string[] => {
  const pieces = new TextPieces(text, O200K_SPLIT);
  const found: string[] = [];
  while (pieces.next()) found.push(pieces.source.slice(pieces.start, pieces.end));
  return found;
};

/** The pieces the split pattern finds in one pass over the whole text. */
const wholePassPieces = (text: string): string[] => text.match(O200K_SPLIT) ?? [];

describe('TextPieces', () => {
  it('walks the pieces of the split pattern, and nothing in an empty text', () => {
    expect(piecesOf("Hello there, world. It's 12345!")).toEqual([
      'Hello',
      ' there',
      ',',
      ' world',
      '.',
      " It's",
      ' ',
      '123',
      '45',
      '!',
    ]);
    expect(piecesOf('')).toEqual([]);
  });

  it('finds the same pieces as one pass over the whole text, across window boundaries', () => {
    const alphabet = "ab AB 12 ,.\n\t\u00a0é的😀's";
    for (let seed = 1; seed <= 20; seed++) {
      const text = randomText(3 * WINDOW_CHARS + seed * 37, alphabet, seed);
      expect(piecesOf(text)).toEqual(wholePassPieces(text));
    }
  });

  it('slices a long run into pieces of at most 128 characters and 128 bytes', () => {
    const text = `start ${'='.repeat(10_000)} end ${'é'.repeat(300)}`;
    const pieces = piecesOf(text);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(MAX_PIECE_CHARS);
      expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(MAX_PIECE_BYTES);
    }
    expect(pieces.filter((piece) => /^=+$/.test(piece)).length).toBeGreaterThanOrEqual(78);
  });

  it('never cuts between the two halves of a surrogate pair', () => {
    const text = '𝒜'.repeat(5000); // one piece of 10,000 UTF-16 units
    const pieces = piecesOf(text);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces) expect(piece).toBe('𝒜'.repeat(piece.length / 2));
  });
});
