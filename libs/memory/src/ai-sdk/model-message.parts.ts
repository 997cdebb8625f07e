import type { AssistantContent, FilePart, ImagePart, ToolCallPart, ToolResultPart } from 'ai';
import { mediaPartFromContent, type MediaContent } from '../core/media-part.codec';
import type { ContentPart } from '../core/message';
import { AI_SDK_KEY, aiData, textPart, withData, withOptions, type Json } from './ai-sdk-data';

/** A tool result's output, as the SDK types it. */
export type ToolOutput = ToolResultPart['output'];
type OutputItem = Extract<ToolOutput, { type: 'content' }>['value'][number];
/**
 * `ai` 6's deprecated `media` output item, which `ai` 7 dropped: named here so that the converter
 * type-checks against both majors and still reads what `ai` 6 wrote.
 */
type MediaOutputItem = { type: 'media'; data: string; mediaType: string };
/** A part of a user message's content. */
export type UserPart = ImagePart | FilePart | { type: 'text'; text: string };

/** A stored part as an AI SDK part of a `role` message (images are `file` parts in assistant ones). */
export function partToAi(
  part: ContentPart,
  role: 'user' | 'assistant',
): Exclude<AssistantContent, string>[number] | UserPart {
  const data = aiData(part.providerData);
  if (data.part !== undefined) return data.part as UserPart;
  const options = data.providerOptions as TextPartOptions;
  switch (part.type) {
    case 'text':
      return withOptions({ type: 'text', text: part.text ?? '' }, options);
    case 'reasoning':
      return withOptions({ type: 'reasoning', text: part.text ?? '' }, options);
    case 'redacted_reasoning':
      return withOptions(
        { type: 'reasoning', text: '' },
        options ?? { anthropic: { redactedData: part.text ?? '' } },
      );
    case 'image_url':
    case 'image_base64': {
      const kind = data.type ?? (role === 'assistant' ? 'file' : 'image');
      const content = mediaData(part, data);
      const mediaType =
        part.type === 'image_base64' ? part.mimeType : (data.mediaType as string | undefined);
      if (kind === 'file') {
        const file: FilePart = {
          type: 'file',
          data: content,
          mediaType: mediaType ?? 'application/octet-stream',
        };
        if (typeof data.filename === 'string') file.filename = data.filename;
        return withOptions(file, options);
      }
      const image: ImagePart = { type: 'image', image: content };
      if (mediaType !== undefined) image.mediaType = mediaType;
      return withOptions(image, options);
    }
  }
}

type TextPartOptions = ToolCallPart['providerOptions'];

/** An AI SDK part as a stored part; one the model has no type for is kept whole in `providerData.aiSdk.part`. */
export function partFromAi(part: unknown, path: string): ContentPart {
  const ai = part as { type: string; providerOptions?: unknown };
  const options = ai.providerOptions;
  switch (ai.type) {
    case 'text':
    case 'reasoning':
      return withData(
        { type: ai.type, text: (part as { text: string }).text },
        { providerOptions: options },
      );
    case 'image': {
      const image = part as ImagePart;
      return withData(mediaPart(image.image, image.mediaType, `${path}.image`), {
        providerOptions: options,
      });
    }
    case 'file': {
      const file = part as FilePart;
      return withData(mediaPart(file.data, file.mediaType, `${path}.data`), {
        type: 'file',
        filename: file.filename,
        providerOptions: options,
      });
    }
    default:
      return { type: 'text', text: '', providerData: { [AI_SDK_KEY]: { part } } };
  }
}

function mediaData(part: ContentPart, data: Json): URL | string | Uint8Array {
  if (part.type === 'image_url') {
    const url = part.imageUrl ?? '';
    return data.form === 'url' ? new URL(url) : url;
  }
  const base64 = part.imageBase64 ?? '';
  return data.form === 'binary' ? new Uint8Array(Buffer.from(base64, 'base64')) : base64;
}

/** A stored part as an item of a tool result's `content` output. */
export function partToOutputItem(part: ContentPart): OutputItem {
  const data = aiData(part.providerData);
  if (data.part !== undefined) return data.part as OutputItem;
  const options = data.providerOptions as TextPartOptions;
  if (part.type === 'image_url') {
    const kind = data.type === 'file-url' ? 'file-url' : 'image-url';
    const item = { type: kind, url: part.imageUrl ?? '' } as OutputItem & { mediaType?: string };
    if (kind === 'file-url' && typeof data.mediaType === 'string') item.mediaType = data.mediaType;
    return withOptions(item, options);
  }
  if (part.type === 'image_base64') {
    const kind = typeof data.type === 'string' ? data.type : 'image-data';
    const item = {
      type: kind,
      data: part.imageBase64 ?? '',
      mediaType: part.mimeType ?? 'application/octet-stream',
    } as OutputItem & { filename?: string };
    if (typeof data.filename === 'string') item.filename = data.filename;
    return kind === 'media' ? item : withOptions(item, options);
  }
  return withOptions({ type: 'text', text: part.text ?? '' }, options);
}

/** An item of a tool result's `content` output as a stored part. */
export function partFromOutputItem(item: OutputItem | MediaOutputItem): ContentPart {
  const options = 'providerOptions' in item ? item.providerOptions : undefined;
  switch (item.type) {
    case 'text':
      return withData(textPart(item.text), { providerOptions: options });
    case 'image-url':
      return withData({ type: 'image_url', imageUrl: item.url }, { providerOptions: options });
    case 'file-url':
      return withData(
        { type: 'image_url', imageUrl: item.url },
        { type: 'file-url', mediaType: item.mediaType, providerOptions: options },
      );
    case 'image-data':
    case 'file-data':
    case 'media':
      return withData(
        { type: 'image_base64', imageBase64: item.data, mimeType: item.mediaType },
        {
          type: item.type === 'image-data' ? undefined : item.type,
          filename: item.type === 'file-data' ? item.filename : undefined,
          providerOptions: options,
        },
      );
    default:
      return { type: 'text', text: '', providerData: { [AI_SDK_KEY]: { part: item } } };
  }
}

/**
 * An image or file's data as a part (see `mediaPartFromContent`: URLs as `image_url`, bytes and
 * base64 as `image_base64`), remembering which form the SDK gave so it gets the same form back.
 */
function mediaPart(content: unknown, mediaType: string | undefined, path: string): ContentPart {
  const part = mediaPartFromContent(content as MediaContent, mediaType, path);
  if (part.type === 'image_url') {
    const form = typeof content === 'string' ? undefined : 'url';
    return withData(part, { form, mediaType });
  }
  return typeof content === 'string' ? part : withData(part, { form: 'binary' });
}
