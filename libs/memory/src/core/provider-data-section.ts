/**
 * Each SDK adapter keeps what its SDK carries beyond the model in a section of a message's (or a
 * part's) `providerData`, under a key of its own (`aiSdk`, `chatCompletions`, `langchain`,
 * `openaiAgents`). These helpers read and write one section with the same rules everywhere: only
 * own keys are read (nothing inherited), `undefined` fields are left out, other sections are never
 * dropped, and a `__proto__` key is copied as a plain field instead of changing a prototype.
 */

type Json = Record<string, unknown>;

/** `value` when it is a JSON object (not null, not an array), else undefined. */
export function asJsonObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : undefined;
}

/** The section `key` of `providerData` (an own field holding an object), else an empty object. */
export function readSection(providerData: Json | undefined, key: string): Json {
  if (!providerData || !Object.hasOwn(providerData, key)) return {};
  return asJsonObject(providerData[key]) ?? {};
}

/**
 * A copy of `fields`' own entries that are not undefined and not named in `skip`, or undefined
 * when none is left. Built with `Object.fromEntries`, so a `__proto__` field stays a field.
 */
export function definedFields(
  fields: Json,
  skip: ReadonlySet<string> = new Set(),
): Json | undefined {
  const kept = Object.entries(fields).filter(
    ([key, value]) => value !== undefined && !skip.has(key),
  );
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * Merges the defined fields of `fields` into the section `key` of `target.providerData`, keeping
 * the section's other fields and every other section; does nothing when no field is defined.
 * Returns `target`, changed in place.
 */
export function mergeSection<T extends { providerData?: Json }>(
  target: T,
  key: string,
  fields: Json,
): T {
  const kept = definedFields(fields);
  if (!kept) return target;
  const section = { ...readSection(target.providerData, key), ...kept };
  target.providerData = { ...target.providerData, [key]: section };
  return target;
}
