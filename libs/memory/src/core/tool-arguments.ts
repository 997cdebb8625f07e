/**
 * A tool call's `arguments` text as the value an SDK wants (`input`, `args`): the parsed JSON,
 * `{}` for empty text, and the text itself when it is not JSON (a model can write broken
 * arguments; they are kept for the model to read, not thrown away).
 */
export function parseToolArguments(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A tool call's `arguments` as the text stored: text as it is (the wire's own form, JSON or not),
 * `''` for none, anything else (some compatible servers answer with an object) as JSON.
 */
export function toolArgumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}
