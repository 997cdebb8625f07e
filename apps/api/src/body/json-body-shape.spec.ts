import { assertJsonBodyShape, MAX_JSON_CONTAINERS, MAX_JSON_DEPTH } from './json-body-shape';

const check = (text: string) => () => assertJsonBodyShape(Buffer.from(text, 'utf8'));

describe('assertJsonBodyShape', () => {
  it('lets ordinary bodies through, strings holding brackets, quotes and repeated words included', () => {
    for (const body of [
      '{"messages":[{"role":"user","parts":[{"type":"text","text":"{[\\"role\\":1, \\"role\\":2]}"}]}]}',
      '{"a":{"b":1},"b":{"a":2},"c":[{"a":1},{"a":2}]}',
      '{"a":"role","role":"a"}',
      `{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
      `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`,
      '{"text":"\\\\","role":"user"}',
    ]) {
      expect(check(body)).not.toThrow();
    }
  });

  it('refuses a field given twice in one object, however it is written', () => {
    for (const [body, key] of [
      ['{"role":"user","parts":[],"role":"system"}', 'role'],
      ['{"messages":[{"parts":[{"type":"text","type":"image_url"}]}]}', 'type'],
      ['{"role":"user","\\u0072ole":"system"}', 'role'],
      [`{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}`, 'k7'],
      ['{"é":1,"\\u00e9":2}', 'é'],
    ]) {
      expect(check(body)).toThrow(
        expect.objectContaining({ field: key, code: 'INVALID_BODY', status: 400 }),
      );
    }
  });

  it('refuses nesting past the depth limit and bodies with too many objects, stopping at once', () => {
    expect(check(`${'['.repeat(500_000)}${']'.repeat(500_000)}`)).toThrow(
      new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`),
    );
    const parts = `{"messages":[{"role":"user","parts":[${'{"type":"text"},'.repeat(250_000)}{}]}]}`;
    expect(check(parts)).toThrow(new RegExp(`more than ${MAX_JSON_CONTAINERS} objects`));
  });
});
