/** The outcome of reading the metadata editor's JSON. */
export type MetaParse = { ok: true; meta: Record<string, string> } | { ok: false; error: string };

/** Reads a metadata object: JSON, an object, string values only. */
export function parseMetaJson(text: string): MetaParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'Metadata must be a JSON object, like {"title": "…"}.' };
  }
  for (const [key, field] of Object.entries(value)) {
    if (typeof field !== 'string') {
      return { ok: false, error: `"${key}" must be a string (metadata values are text).` };
    }
    if (!/^[A-Za-z0-9_.:-]+$/.test(key)) {
      return { ok: false, error: `"${key}" is not a valid key: use letters, digits and _ . : -` };
    }
  }
  return { ok: true, meta: value as Record<string, string> };
}

/** The PATCH body that turns `before` into `after`: changed keys, and '' for removed ones. */
export function metaPatch(
  before: Record<string, string>,
  after: Record<string, string>,
): Record<string, string> {
  const patch: Record<string, string> = {};
  for (const [key, value] of Object.entries(after)) if (before[key] !== value) patch[key] = value;
  for (const key of Object.keys(before)) if (!(key in after)) patch[key] = '';
  return patch;
}
