import { MAX_CHUNK_CHARS, MAX_PIECE_CHARS, countableChunks, isWhitespace } from './token-chunks';
import { O200K_SPLIT } from './token-split-patterns';

const chunks = (text: string) => [...countableChunks(text, O200K_SPLIT)];

describe('countableChunks', () => {
  it('hands a short ordinary text over whole, and nothing for an empty one', () => {
    expect(chunks('Hello there, world.')).toEqual(['Hello there, world.']);
    expect(chunks('')).toEqual([]);
  });

  it('cuts long ordinary text into chunks that add up to it, each ending after a non-space', () => {
    const text = 'The quick brown fox jumps over the lazy dog.\n  Then it naps. '.repeat(400);
    const parts = chunks(text);
    expect(parts.join('')).toBe(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts.slice(0, -1)) {
      expect(part.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS + MAX_PIECE_CHARS);
      expect(part).toMatch(/\S$/);
    }
  });

  it('slices a long run into pieces of at most 128 characters, alone in their chunk', () => {
    const text = `start ${'='.repeat(1000)} end`;
    const parts = chunks(text);
    expect(parts.join('')).toBe(text);
    expect(Math.max(...parts.map((part) => part.length))).toBeLessThanOrEqual(MAX_PIECE_CHARS);
    expect(parts.filter((part) => /^=+$/.test(part)).length).toBeGreaterThanOrEqual(7);
  });

  it('never cuts between the two halves of a surrogate pair', () => {
    const text = '𝒜'.repeat(500); // one piece of 1,000 UTF-16 units
    for (const part of chunks(text)) {
      expect(part.length % 2).toBe(0);
      expect(part).toBe('𝒜'.repeat(part.length / 2));
    }
  });

  it('agrees with \\s on what whitespace is, for every UTF-16 code unit', () => {
    const disagreements: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (isWhitespace(code) !== /\s/.test(String.fromCharCode(code))) {
        disagreements.push(`U+${code.toString(16)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
