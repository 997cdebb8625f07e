import { TwoGenerationCache } from './two-generation-cache';

describe('TwoGenerationCache', () => {
  it('keeps at most two generations of entries, and what is still read survives', () => {
    const cache = new TwoGenerationCache(3, 1000);
    for (const key of ['a', 'b', 'c']) cache.set(key, key.charCodeAt(0));
    cache.set('d', 4); // the first generation becomes the older one
    expect(cache.get('a')).toBe(97); // read from the older generation: copied back
    for (const key of ['e', 'f']) cache.set(key, 0); // the generation with 'b' and 'c' is dropped
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')).toBe(97);
    expect(cache.get('d')).toBe(4);
  });

  it('bounds the characters kept, and never keeps a key longer than the bound', () => {
    const cache = new TwoGenerationCache(100, 10);
    cache.set('x'.repeat(11), 1);
    expect(cache.get('x'.repeat(11))).toBeUndefined();
    cache.set('aaaaaa', 1);
    cache.set('bbbbbb', 2); // 12 characters would not fit: a new generation
    cache.set('cccccc', 3); // and another: the one with 'aaaaaa' is dropped
    expect(cache.get('aaaaaa')).toBeUndefined();
    expect(cache.get('bbbbbb')).toBe(2);
    expect(cache.get('cccccc')).toBe(3);
  });
});
