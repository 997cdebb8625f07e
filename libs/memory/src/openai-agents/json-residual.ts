/**
 * What turns one JSON value into another: the smallest description of where `target` differs
 * from `base`, kept in a message's `providerData` so an SDK item our model cannot hold whole comes
 * back byte-equal (same fields, same values, same key order) from what the model did hold.
 */
export interface JsonResidual {
  /** Fields whose value is replaced as a whole. */
  set?: Record<string, unknown>;
  /** Fields of `base` that `target` does not have. */
  unset?: string[];
  /** Fields that differ inside, by name (objects) or index (arrays of the same length). */
  inner?: Record<string, JsonResidual>;
  /** `target`'s key order, when it is not what the other steps give. */
  order?: string[];
  /** `target` as a whole, when it is not an object or array of the same kind as `base`. */
  value?: unknown;
}

type JsonObject = Record<string, unknown>;

/** The residual from `base` to `target` (both plain JSON), or undefined when they are equal. */
export function diffJson(base: unknown, target: unknown): JsonResidual | undefined {
  if (sameJson(base, target)) return undefined;
  if (Array.isArray(base) && Array.isArray(target) && base.length === target.length) {
    const inner: Record<string, JsonResidual> = {};
    target.forEach((item, index) => {
      const residual = diffJson(base[index], item);
      if (residual) inner[String(index)] = residual;
    });
    return { inner };
  }
  if (isObject(base) && isObject(target)) return diffObjects(base, target);
  return { value: target };
}

/** `base` with `residual` applied: the `target` it was computed from. Does not change `base`. */
export function applyJson(base: unknown, residual: JsonResidual | undefined): unknown {
  if (!residual) return base;
  if ('value' in residual) return residual.value;
  if (Array.isArray(base)) {
    return base.map((item, index) => applyJson(item, residual.inner?.[String(index)]));
  }
  const source = isObject(base) ? base : {};
  const merged: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (residual.unset?.includes(key)) continue;
    merged[key] = applyJson(value, residual.inner?.[key]);
  }
  for (const [key, value] of Object.entries(residual.set ?? {})) merged[key] = value;
  if (!residual.order) return merged;
  const ordered: JsonObject = {};
  for (const key of residual.order) ordered[key] = merged[key];
  return ordered;
}

function diffObjects(base: JsonObject, target: JsonObject): JsonResidual {
  const residual: JsonResidual = {};
  const set: JsonObject = {};
  const inner: Record<string, JsonResidual> = {};
  for (const [key, value] of Object.entries(target)) {
    if (!(key in base)) set[key] = value;
    else {
      const change = diffJson(base[key], value);
      if (change) inner[key] = change;
    }
  }
  const unset = Object.keys(base).filter((key) => !(key in target));
  if (Object.keys(set).length > 0) residual.set = set;
  if (unset.length > 0) residual.unset = unset;
  if (Object.keys(inner).length > 0) residual.inner = inner;
  const produced = Object.keys(applyJson(base, residual) as JsonObject);
  const wanted = Object.keys(target);
  if (produced.join('\u0000') !== wanted.join('\u0000')) residual.order = wanted;
  return residual;
}

/** Equal as JSON text: same values and the same key order. */
function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
