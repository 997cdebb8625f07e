import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { cosineSimilarity } from './vector-math';

describe('HashedNgramEmbedder (lexical)', () => {
  const embedder = new HashedNgramEmbedder({ dimensions: 256 });

  it('is deterministic, normalised and of the given size', async () => {
    const [a, b] = await embedder.embed(['Hello world', 'Hello world']);
    expect(a).toEqual(b);
    expect(a).toHaveLength(256);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 6);
  });

  it('texts sharing words are closer than texts sharing none', async () => {
    const [q, same, other] = await embedder.embed([
      'peanut allergy',
      'I am allergic to peanuts',
      'the train leaves at noon',
    ]);
    expect(cosineSimilarity(q!, same!)).toBeGreaterThan(cosineSimilarity(q!, other!) + 0.2);
  });

  it('embeds an empty text as the zero vector and refuses bad sizes', async () => {
    const [zero] = await embedder.embed(['']);
    expect(zero!.every((x) => x === 0)).toBe(true);
    expect(() => new HashedNgramEmbedder({ dimensions: 0 })).toThrow(RangeError);
  });
});
