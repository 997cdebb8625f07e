import { definedFields, mergeSection, readSection } from './provider-data-section';
import type { ContentPart } from './message';

describe('provider data sections', () => {
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown>]>([
    ['no provider data', undefined, {}],
    ['no section', { other: { a: 1 } }, {}],
    ['the section', { mine: { a: 1 } }, { a: 1 }],
    ['a section that is not an object', { mine: [1] }, {}],
    ['an inherited section', Object.create({ mine: { a: 1 } }) as Record<string, unknown>, {}],
  ])('reads %s', (_name, providerData, section) => {
    expect(readSection(providerData, 'mine')).toEqual(section);
  });

  it('merges into its own section, keeping its other fields and every other section', () => {
    const part: ContentPart = {
      type: 'text',
      text: 'hi',
      providerData: { other: { b: 2 }, mine: { a: 1, c: 3 } },
    };
    mergeSection(part, 'mine', { a: 10, d: undefined });
    expect(part.providerData).toEqual({ other: { b: 2 }, mine: { a: 10, c: 3 } });
  });

  it('adds nothing when every field is undefined', () => {
    const part: ContentPart = { type: 'text', text: 'hi' };
    mergeSection(part, 'mine', { a: undefined });
    expect(part).toEqual({ type: 'text', text: 'hi' });
  });

  it('copies a __proto__ field as a field, never as a prototype', () => {
    const wire = JSON.parse('{"__proto__": {"polluted": true}, "role": "x", "kept": 1}') as Record<
      string,
      unknown
    >;
    const copy = definedFields(wire, new Set(['role']))!;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(Object.keys(copy)).toEqual(['__proto__', 'kept']);
    const part: ContentPart = { type: 'text', text: '' };
    mergeSection(part, 'mine', wire);
    const section = readSection(part.providerData, 'mine');
    expect(Object.getPrototypeOf(section)).toBe(Object.prototype);
    expect((section as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(section))).toEqual(wire);
  });
});
