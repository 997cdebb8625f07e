/**
 * A deterministic pseudo-random generator (mulberry32) for inputs that must be the same on every
 * run. Its 32-bit integer steps never lose precision: a float LCG such as
 * `state * 1103515245 + 12345` does, and repeats itself after about 10,000 values, which makes
 * "random" megabytes periodic and lets caches hit.
 * @returns numbers in [0, 1)
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
