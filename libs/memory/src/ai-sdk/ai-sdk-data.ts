import type { ContentPart, Message } from '../core/message';
import { mergeSection, readSection } from '../core/provider-data-section';

/** The key of `providerData` (of a message or a part) holding what the AI SDK carries beyond the model. */
export const AI_SDK_KEY = 'aiSdk';

/** A JSON object: what the AI SDK adapter keeps in `providerData.aiSdk`. */
export type Json = Record<string, unknown>;

/** The AI SDK's own entries of `providerData` (other adapters' keys aside). */
export function aiData(providerData: Json | undefined): Json {
  return readSection(providerData, AI_SDK_KEY);
}

/** Adds the defined entries of `data`, if any, to `providerData.aiSdk`. */
export function withData<T extends Message | ContentPart>(target: T, data: Json): T {
  return mergeSection(target, AI_SDK_KEY, data);
}

/** Sets `providerOptions` on an SDK message or part when there are any. */
export function withOptions<T extends object>(target: T, options: unknown): T {
  if (options !== undefined) (target as { providerOptions?: unknown }).providerOptions = options;
  return target;
}

/** A text part. */
export function textPart(text: string): ContentPart {
  return { type: 'text', text };
}

/** The text parts' text, one per line. */
export function textOf(parts: ContentPart[]): string {
  return parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

/** True when the parts would be written back as string content (one text part, no provider data). */
export function isPlainString(parts: ContentPart[]): boolean {
  return parts.length === 1 && parts[0]!.type === 'text' && parts[0]!.providerData === undefined;
}

/** String content for one plain text part unless the SDK had an array, else the parts. */
export function contentOf<T extends { type: string }>(parts: T[], data: Json): string | T[] {
  const [only] = parts;
  if (
    data.contentArray !== true &&
    parts.length === 1 &&
    only!.type === 'text' &&
    Object.keys(only!).length === 2
  ) {
    return (only as unknown as { text: string }).text;
  }
  return parts;
}
