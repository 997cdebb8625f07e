import { parseToolArguments, toolArgumentsText } from './tool-arguments';

describe('tool-call arguments', () => {
  it.each<[string, unknown]>([
    ['{"city":"Paris"}', { city: 'Paris' }],
    ['[1,2]', [1, 2]],
    ['', {}],
    ['{"city": "Par', '{"city": "Par'],
    ['not json', 'not json'],
  ])('parses %j as %j (broken JSON kept as its text)', (text, value) => {
    expect(parseToolArguments(text)).toEqual(value);
  });

  it.each<[unknown, string]>([
    ['{"city":"Paris"}', '{"city":"Paris"}'],
    ['{"city": "Par', '{"city": "Par'],
    [{ city: 'Paris' }, '{"city":"Paris"}'],
    [undefined, ''],
    [null, ''],
  ])('stores %j as %j', (value, text) => {
    expect(toolArgumentsText(value)).toBe(text);
  });
});
