import { tornArrayTail, wholeArrayTail } from './plain-array-tail';

/** The array a torn text reads as: the text up to the tail plus `]`. */
const readAs = (text: string): unknown => {
  const tail = tornArrayTail(text);
  return tail === null ? null : JSON.parse(`${text.slice(0, tail.at)}]`);
};

describe('plain-array-tail: where an append in place writes, and a cut-off one', () => {
  const a = '{"n":"a"}';
  const b = '{"n":"b"}';
  const c = '{"n":"c, \\"quoted\\" ]"}';
  const stored = `[${a}\n,${b}]`;

  it('appends over the closing bracket of a whole array', () => {
    expect(wholeArrayTail(stored)).toEqual({ at: stored.length - 1, torn: false });
    expect(wholeArrayTail('[\n]\n')).toEqual({ at: 2, torn: false });
  });

  it.each<[string, string, unknown]>([
    ['nothing of the append after the old bracket', `${stored}\0\0\0`, [{ n: 'a' }, { n: 'b' }]],
    ['only its line break', `[${a}\n,${b}\n`, [{ n: 'a' }, { n: 'b' }]],
    ['its line break and comma', `[${a}\n,${b}\n,`, [{ n: 'a' }, { n: 'b' }]],
    ['part of its first message', `[${a}\n,${b}\n,{"n":"c`, [{ n: 'a' }, { n: 'b' }]],
    ['its first message whole', `[${a}\n,${b}\n,${c}`, [{ n: 'a' }, { n: 'b' }]],
    ['its first message and a comma', `[${a}\n,${b}\n,${c},`, [{ n: 'a' }, { n: 'b' }]],
    ['then zeros', `[${a}\n,${b}\n,${c},{"n\0\0`, [{ n: 'a' }, { n: 'b' }]],
    ['the first batch into an empty array', `[\n${a},{"n`, []],
    ['into an empty array written with a line break', `[\n\n${a},`, []],
    ['after a rewrite without line breaks', `[${a},${b}\n,${c}`, [{ n: 'a' }, { n: 'b' }]],
    ['a later sector landed, the bracket kept', `[${a}]\0\0"n":"c"}]`, [{ n: 'a' }]],
  ])('reads a cut-off append as the array before it: %s', (_case, text, expected) => {
    expect(readAs(text)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['a compact array cut off inside a message', '[{"role":"user","parts":[{"type":"te'],
    ['a compact array cut off after a message', `[${a},${b}`],
    ['not an array', '{"messages": ['],
    ['garbage', 'hello'],
  ])('leaves what no append of this library cut off to be corrupt: %s', (_case, text) => {
    expect(tornArrayTail(text)).toBeNull();
  });
});
