/** Scales `vector` to unit length in place (a zero vector stays zero) and returns it. */
export function normalizeInPlace<T extends { length: number; [i: number]: number }>(vector: T): T {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}

/** Cosine similarity of two vectors of the same length (0 when either is zero). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Throws a TypeError unless every element is a finite number. */
export function assertFiniteVector(vector: readonly number[], what: string): void {
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) {
      throw new TypeError(`${what}[${i}] is ${String(vector[i])}, not a finite number`);
    }
  }
}
