import { InvalidMessageError } from './errors';
import type { ContentPart } from './message';

/** The media type a base64 image is sent with when its part names none. */
export const DEFAULT_MEDIA_TYPE = 'application/octet-stream';

/** A `data:` URL taken apart: its media type (parameters included) and its data as base64. */
export interface DataUrl {
  /** The media type as written, parameters included (`image/png`, `text/plain;charset=utf-8`); may be empty. */
  mediaType: string;
  /** The data as base64: as written for a `;base64` URL, encoded from the bytes for a percent-encoded one. */
  base64: string;
  /** How the URL carried its data. */
  encoding: 'base64' | 'percent';
}

const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;
const PERCENT_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Reads a `data:` URL (RFC 2397): `data:<media type>[;<parameter>…][;base64],<data>`, base64 or
 * percent-encoded. Returns undefined for any other URL (the scheme is matched case-insensitively).
 * @throws InvalidMessageError at `path` for a `data:` URL that is not one: no comma before the
 *   data, base64 data with characters or padding base64 has not, a `%` not followed by two hex digits.
 */
export function parseDataUrl(url: string, path: string): DataUrl | undefined {
  if (!/^data:/i.test(url)) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) {
    throw new InvalidMessageError(path, 'is a data: URL without the comma before its data');
  }
  const header = url.slice('data:'.length, comma);
  const data = url.slice(comma + 1);
  const params = header.split(';');
  const isBase64 = params.length > 1 && params[params.length - 1]!.toLowerCase() === 'base64';
  const mediaType = (isBase64 ? params.slice(0, -1) : params).join(';');
  if (isBase64) {
    if (!BASE64_TEXT.test(data) || data.length % 4 === 1) {
      throw new InvalidMessageError(path, 'is a base64 data: URL whose data is not base64');
    }
    return { mediaType, base64: data, encoding: 'base64' };
  }
  if (PERCENT_ESCAPE.test(data)) {
    throw new InvalidMessageError(
      path,
      'is a data: URL with a % not followed by two hex digits (percent-encode it as %25)',
    );
  }
  return { mediaType, base64: percentDecode(data).toString('base64'), encoding: 'percent' };
}

/** A base64 `data:` URL of `base64` data; `mediaType` defaults to {@link DEFAULT_MEDIA_TYPE}. */
export function formatDataUrl(mediaType: string | undefined, base64: string): string {
  return `data:${mediaType || DEFAULT_MEDIA_TYPE};base64,${base64}`;
}

/**
 * The image part an SDK's image URL becomes: a base64 `data:` URL with a media type and data as
 * an `image_base64` part (so it is sent back as the same URL), any other URL (a percent-encoded
 * `data:` URL included, kept as written) as an `image_url` part.
 * @throws InvalidMessageError at `path` for a malformed `data:` URL (see {@link parseDataUrl}).
 */
export function imagePartFromUrl(url: string, path: string): ContentPart {
  const data = parseDataUrl(url, path);
  if (data && data.encoding === 'base64' && data.mediaType !== '' && data.base64 !== '') {
    return { type: 'image_base64', imageBase64: data.base64, mimeType: data.mediaType };
  }
  return { type: 'image_url', imageUrl: url };
}

/**
 * The URL an image part is sent as: an `image_url` part's URL, an `image_base64` part's data as a
 * base64 `data:` URL (of {@link DEFAULT_MEDIA_TYPE} when the part has no `mimeType`).
 */
export function imagePartToUrl(part: ContentPart): string {
  if (part.type === 'image_url') return part.imageUrl ?? '';
  return formatDataUrl(part.mimeType, part.imageBase64 ?? '');
}

/** An SDK's image or file content: a URL, URL text, base64 text or bytes. */
export type MediaContent = URL | string | Uint8Array | ArrayBuffer;

/**
 * The part an SDK's image or file content becomes: a `URL` or text with a scheme (`https:`,
 * `data:`) an `image_url` part; base64 text or bytes an `image_base64` part (bytes as base64),
 * with `mediaType` as its `mimeType` when given.
 * @throws InvalidMessageError at `path` for a malformed `data:` URL, or content of another kind.
 */
export function mediaPartFromContent(
  content: MediaContent,
  mediaType: string | undefined,
  path: string,
): ContentPart {
  if (content instanceof URL || isUrlLike(content)) {
    return { type: 'image_url', imageUrl: content.href };
  }
  let base64: string;
  if (typeof content === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(content)) {
      parseDataUrl(content, path);
      return { type: 'image_url', imageUrl: content };
    }
    base64 = content;
  } else if (content instanceof ArrayBuffer) {
    base64 = Buffer.from(content).toString('base64');
  } else if (ArrayBuffer.isView(content)) {
    base64 = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64');
  } else {
    throw new InvalidMessageError(path, 'must be a URL, base64 text or bytes');
  }
  const part: ContentPart = { type: 'image_base64', imageBase64: base64 };
  if (mediaType !== undefined) part.mimeType = mediaType;
  return part;
}

/** A `URL` from another realm (jest, vm contexts) is not `instanceof URL` here. */
function isUrlLike(value: unknown): value is { href: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !ArrayBuffer.isView(value) &&
    typeof (value as { href?: unknown }).href === 'string'
  );
}

function percentDecode(text: string): Buffer {
  const pieces = text
    .split(/(%[0-9A-Fa-f]{2})/)
    .map((piece) =>
      /^%[0-9A-Fa-f]{2}$/.test(piece)
        ? Buffer.from([parseInt(piece.slice(1), 16)])
        : Buffer.from(piece, 'utf8'),
    );
  return Buffer.concat(pieces);
}
