/**
 * Runs `fn` and rethrows what it throws as `translate` makes it: each store turns its client's
 * errors into the library's own (`translate` returns the error itself to pass it on).
 */
export async function rethrowTranslated<T>(
  fn: () => Promise<T>,
  translate: (error: unknown) => unknown,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw translate(error);
  }
}
