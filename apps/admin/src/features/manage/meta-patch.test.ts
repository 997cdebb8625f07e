import { describe, expect, it } from 'vitest';
import { metaPatch, parseMetaJson } from './meta-patch';

describe('metadata editor', () => {
  it('accepts an object of strings and names what is wrong otherwise', () => {
    expect(parseMetaJson('{"title":"A","team":"ops"}')).toEqual({
      ok: true,
      meta: { title: 'A', team: 'ops' },
    });
    expect(parseMetaJson('{"title":')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Not valid JSON/),
    });
    expect(parseMetaJson('["a"]')).toEqual({
      ok: false,
      error: 'Metadata must be a JSON object, like {"title": "…"}.',
    });
    expect(parseMetaJson('{"count": 3}')).toEqual({
      ok: false,
      error: '"count" must be a string (metadata values are text).',
    });
    expect(parseMetaJson('{"bad key": "x"}')).toMatchObject({
      ok: false,
      error: expect.stringContaining('"bad key"'),
    });
  });

  it('sends changed keys and removes dropped ones with an empty string', () => {
    expect(
      metaPatch({ title: 'A', team: 'ops', old: 'x' }, { title: 'B', team: 'ops', added: 'y' }),
    ).toEqual({
      title: 'B',
      added: 'y',
      old: '',
    });
  });
});
