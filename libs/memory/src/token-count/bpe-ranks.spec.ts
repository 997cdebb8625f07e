import { get_encoding } from 'tiktoken';
import { loadMergeableRanks } from './bpe-ranks';

describe('loadMergeableRanks', () => {
  it.each(['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const)(
    'reads %s: every token has the bytes tiktoken gives its rank',
    (encoding) => {
      const ranks = loadMergeableRanks(encoding);
      const reference = get_encoding(encoding);
      const differing: number[] = [];
      for (let token = 0; token < ranks.ranks.length; token++) {
        const bytes = ranks.bytes.subarray(ranks.starts[token], ranks.starts[token + 1]);
        const expected = reference.decode_single_token_bytes(ranks.ranks[token]!);
        if (!Buffer.from(bytes).equals(Buffer.from(expected))) differing.push(ranks.ranks[token]!);
      }
      reference.free();
      expect(differing).toEqual([]);
      expect(ranks.ranks.length).toBeGreaterThan(50_000);
    },
    30_000,
  );
});
