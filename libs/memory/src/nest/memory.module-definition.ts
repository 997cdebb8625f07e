/**
 * The token of the options a `MemoryModule` instance was given, inside that instance's own module
 * (every instance, named or not, provides its options under this token to its own providers; the
 * default instance also exports it). Outside, use `getMemoryOptionsToken(name)`.
 */
export const MEMORY_MODULE_OPTIONS = Symbol('MEMORY_MODULE_OPTIONS');
