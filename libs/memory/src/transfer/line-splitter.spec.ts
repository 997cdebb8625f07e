import { InvalidImportLineError } from '../core';
import { splitLines, type InputLine } from './line-splitter';

async function all(source: Iterable<string | Uint8Array>, max = 100): Promise<InputLine[]> {
  const lines: InputLine[] = [];
  for await (const line of splitLines(source, max)) lines.push(line);
  return lines;
}

describe('splitLines', () => {
  it('splits across any chunking, numbering lines from 1, skipping blank ones', async () => {
    expect(await all(['a', 'b\n\r\n', 'c\r', '\nd'])).toEqual([
      { text: 'ab', number: 1 },
      { text: 'c', number: 3 },
      { text: 'd', number: 4 },
    ]);
  });

  it('never cuts a UTF-8 character split between chunks', async () => {
    const bytes = Buffer.from('é€😀\nx\n', 'utf8');
    const chunks = [...bytes].map((byte) => Uint8Array.of(byte));
    expect((await all(chunks)).map((line) => line.text)).toEqual(['é€😀', 'x']);
  });

  it('refuses a line over the limit as soon as it is over, naming its number', async () => {
    let pulled = 0;
    function* endless(): Generator<string> {
      yield 'short\n';
      for (;;) {
        pulled += 1;
        yield 'x'.repeat(10);
      }
    }
    await expect(all(endless(), 50)).rejects.toThrow(InvalidImportLineError);
    await expect(all(endless(), 50)).rejects.toMatchObject({ line: 2, field: '(line)' });
    expect(pulled).toBeLessThan(20);
  });

  it('reads a line of exactly the limit, with or without \\r', async () => {
    expect(await all(['y'.repeat(50) + '\r\n', 'z'.repeat(50)], 50)).toHaveLength(2);
  });
});
