import { describe, expect, it } from 'vitest';
import { safeImageSrc } from './message-view';

describe('safeImageSrc', () => {
  it('allows http(s) URLs and data:image, refuses script URLs and non-image data', () => {
    expect(safeImageSrc({ type: 'image_url', imageUrl: 'https://example.test/a.png' })).toBe(
      'https://example.test/a.png',
    );
    expect(safeImageSrc({ type: 'image_url', imageUrl: 'data:image/png;base64,AAAA' })).toBe(
      'data:image/png;base64,AAAA',
    );
    expect(safeImageSrc({ type: 'image_url', imageUrl: 'javascript:alert(1)' })).toBeNull();
    expect(safeImageSrc({ type: 'image_url', imageUrl: 'data:text/html,<script>' })).toBeNull();
    expect(
      safeImageSrc({ type: 'image_base64', imageBase64: 'AAAA', mimeType: 'text/html' }),
    ).toBeNull();
    expect(
      safeImageSrc({ type: 'image_base64', imageBase64: 'AA"><script>', mimeType: 'image/png' }),
    ).toBeNull();
    expect(
      safeImageSrc({ type: 'image_base64', imageBase64: 'AAAA', mimeType: 'image/jpeg' }),
    ).toBe('data:image/jpeg;base64,AAAA');
  });
});
