/**
 * Freezes a value and everything it holds, so an in-process store can hand out the very objects
 * it keeps without a caller being able to change them behind its back.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const field of Object.values(value)) deepFreeze(field);
  }
  return value;
}
