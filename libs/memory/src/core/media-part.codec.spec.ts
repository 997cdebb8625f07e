import { InvalidMessageError } from './errors';
import {
  formatDataUrl,
  imagePartFromUrl,
  imagePartToUrl,
  mediaPartFromContent,
  parseDataUrl,
} from './media-part.codec';
import type { ContentPart } from './message';

describe('parseDataUrl', () => {
  it.each([
    ['https://x.test/a.png', undefined],
    [
      'data:image/png;base64,aGVsbG8=',
      { mediaType: 'image/png', base64: 'aGVsbG8=', encoding: 'base64' },
    ],
    ['DATA:image/png;BASE64,aGk=', { mediaType: 'image/png', base64: 'aGk=', encoding: 'base64' }],
    [
      'data:image/png;name=a.png;base64,aGk=',
      { mediaType: 'image/png;name=a.png', base64: 'aGk=', encoding: 'base64' },
    ],
    ['data:;base64,aGk=', { mediaType: '', base64: 'aGk=', encoding: 'base64' }],
    [
      'data:text/plain,hi%20there',
      { mediaType: 'text/plain', base64: 'aGkgdGhlcmU=', encoding: 'percent' },
    ],
    [
      'data:text/plain;charset=utf-8,%E2%9C%93',
      {
        mediaType: 'text/plain;charset=utf-8',
        base64: Buffer.from('✓').toString('base64'),
        encoding: 'percent',
      },
    ],
    ['data:,', { mediaType: '', base64: '', encoding: 'percent' }],
  ])('%s', (url, expected) => {
    expect(parseDataUrl(url, 'part')).toEqual(expected);
  });

  it.each([
    ['data:image/png;base64', 'without the comma'],
    ['data:image/png;base64,a b', 'not base64'],
    ['data:image/png;base64,aGk=x', 'not base64'],
    ['data:image/png;base64,aGVsb', 'not base64'],
    ['data:text/plain,100%', '% not followed by two hex digits'],
    ['data:text/plain,%zz', '% not followed by two hex digits'],
  ])('refuses %s, naming the part', (url, problem) => {
    let error: unknown;
    try {
      parseDataUrl(url, 'messages[2].parts[0].imageUrl');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidMessageError);
    expect((error as Error).message).toContain('messages[2].parts[0].imageUrl');
    expect((error as Error).message).toContain(problem);
  });
});

describe('image parts and URLs', () => {
  it.each<[string, ContentPart]>([
    [
      'data:image/png;base64,aGk=',
      { type: 'image_base64', imageBase64: 'aGk=', mimeType: 'image/png' },
    ],
    [
      'data:image/svg+xml;charset=utf-8;base64,PHN2Zy8+',
      { type: 'image_base64', imageBase64: 'PHN2Zy8+', mimeType: 'image/svg+xml;charset=utf-8' },
    ],
    // Kept as written: no media type, no data, or percent-encoded data.
    ['data:;base64,aGk=', { type: 'image_url', imageUrl: 'data:;base64,aGk=' }],
    ['data:image/png;base64,', { type: 'image_url', imageUrl: 'data:image/png;base64,' }],
    [
      'data:image/svg+xml,%3Csvg%2F%3E',
      { type: 'image_url', imageUrl: 'data:image/svg+xml,%3Csvg%2F%3E' },
    ],
    ['https://x.test/a.png', { type: 'image_url', imageUrl: 'https://x.test/a.png' }],
  ])('%s becomes a part and goes back as the same URL', (url, part) => {
    expect(imagePartFromUrl(url, 'part')).toEqual(part);
    expect(imagePartToUrl(part)).toBe(url);
  });

  it('sends a base64 part without a media type as application/octet-stream', () => {
    expect(imagePartToUrl({ type: 'image_base64', imageBase64: 'aGk=' })).toBe(
      'data:application/octet-stream;base64,aGk=',
    );
    expect(formatDataUrl(undefined, 'aGk=')).toBe('data:application/octet-stream;base64,aGk=');
  });

  it('refuses a malformed data URL, naming the part', () => {
    expect(() => imagePartFromUrl('data:image/png;base64,*', 'items[0].content[1].image')).toThrow(
      'items[0].content[1].image',
    );
  });
});

describe('mediaPartFromContent', () => {
  const bytes = new Uint8Array([104, 105]);
  it.each<[string, Parameters<typeof mediaPartFromContent>[0], ContentPart]>([
    [
      'a URL',
      new URL('https://x.test/a.png'),
      { type: 'image_url', imageUrl: 'https://x.test/a.png' },
    ],
    ['URL text', 'https://x.test/a.png', { type: 'image_url', imageUrl: 'https://x.test/a.png' }],
    [
      'a data URL',
      'data:image/png;base64,aGk=',
      { type: 'image_url', imageUrl: 'data:image/png;base64,aGk=' },
    ],
    ['base64 text', 'aGk=', { type: 'image_base64', imageBase64: 'aGk=', mimeType: 'image/png' }],
    ['bytes', bytes, { type: 'image_base64', imageBase64: 'aGk=', mimeType: 'image/png' }],
    [
      'a view into a larger buffer',
      new Uint8Array([0, 104, 105, 0]).subarray(1, 3),
      { type: 'image_base64', imageBase64: 'aGk=', mimeType: 'image/png' },
    ],
    [
      'an ArrayBuffer',
      bytes.buffer,
      { type: 'image_base64', imageBase64: 'aGk=', mimeType: 'image/png' },
    ],
  ])('%s', (_name, content, part) => {
    expect(mediaPartFromContent(content, 'image/png', 'part')).toEqual(part);
  });

  it('leaves mimeType out when the SDK gave no media type', () => {
    expect(mediaPartFromContent('aGk=', undefined, 'part')).toEqual({
      type: 'image_base64',
      imageBase64: 'aGk=',
    });
  });

  it('refuses a malformed data URL and content of another kind, naming the part', () => {
    expect(() =>
      mediaPartFromContent('data:image/png;base64', 'image/png', 'messages[0].content[0].image'),
    ).toThrow('messages[0].content[0].image');
    expect(() =>
      mediaPartFromContent(42 as never, 'image/png', 'messages[0].content[0].data'),
    ).toThrow('messages[0].content[0].data');
  });
});
