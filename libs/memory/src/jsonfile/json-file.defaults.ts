/** The JSON-file store's defaults (plain values: importing this loads nothing). */

/** A session file stays one plain JSON array up to this size (bytes), by default; then it becomes a log. */
export const DEFAULT_PLAIN_MAX_BYTES = 16 * 1024;

/** Bytes a JSON-file session's files may hold, by default; a write past it is refused. */
export const DEFAULT_MAX_SESSION_BYTES = 256 * 1024 * 1024;

/** Parsed JSON-file sessions kept in memory, by default. */
export const DEFAULT_CACHED_SESSIONS = 256;

/** The JSON-file store's folder when `MEMORY_DIR` (or `--dir`) is not given, relative to the working directory. */
export const DEFAULT_MEMORY_DIR = './data/sessions';

/** Free MiB the folder's filesystem must keep for readiness when `MEMORY_JSONFILE_MIN_FREE_MB` is not set. */
export const DEFAULT_JSONFILE_MIN_FREE_MB = 16;
