import { get_encoding } from 'tiktoken';
import { randomText } from '@agent-memory/test-support/random-text';
import { loadMergeableRanks } from './bpe-ranks';
import { BytePairCounter, MAX_COUNTED_PIECE_BYTES } from './byte-pair-counter';

// The reference: tiktoken on the same piece (each alphabet below makes text of one piece).
const reference = get_encoding('o200k_base');
const counter = new BytePairCounter(loadMergeableRanks('o200k_base'));
afterAll(() => reference.free());

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const ALPHABETS: Record<string, string> = {
  'lower-case letters': LOWER,
  'accented letters': 'àáâãäåæçèéêëìíîïñòóôõöøùúûüýþÿßœ',
  Cyrillic: 'абвгдежзийклмнопрстуфхцчшщъыьэюя',
  CJK: '的一是不了人我在有他这为之大来以个中上们',
  emoji: '😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩😘',
  punctuation: '!"#$%&()*+,-./:;<=>?@[]^_`{|}~',
  'one letter': 'q',
  'two letters': 'ab',
  spaces: ' ',
};

describe('BytePairCounter', () => {
  it.each(Object.keys(ALPHABETS))(
    'counts pieces of %s as tiktoken does, up to the longest piece counted',
    (name) => {
      const differing: string[] = [];
      for (let seed = 1; seed <= 300; seed++) {
        const piece = randomText(1 + (seed % 128), ALPHABETS[name]!, seed);
        if (Buffer.byteLength(piece) > MAX_COUNTED_PIECE_BYTES) continue;
        if (counter.count(piece) !== reference.encode_ordinary(piece).length) differing.push(piece);
      }
      expect(differing).toEqual([]);
    },
  );

  it('counts a range of a longer string as that piece alone', () => {
    const text = `xx ${'hello'} yy`;
    expect(counter.count(text, 3, 8)).toBe(counter.count('hello'));
    expect(counter.count('')).toBe(0);
  });

  it('counts a lone surrogate as U+FFFD, as tiktoken reads it', () => {
    expect(counter.count('\ud83d')).toBe(reference.encode_ordinary('\ufffd').length);
    expect(counter.count('a\udc00b')).toBe(reference.encode_ordinary('a\ufffdb').length);
    // A pair cut by the range's end is a lone surrogate too.
    expect(counter.count('😀', 0, 1)).toBe(counter.count('\ufffd'));
  });

  it('refuses a piece longer than it counts, naming the bound', () => {
    expect(() => counter.count('é'.repeat(MAX_COUNTED_PIECE_BYTES))).toThrow(
      `a piece to count is over ${MAX_COUNTED_PIECE_BYTES} UTF-8 bytes`,
    );
  });
});
