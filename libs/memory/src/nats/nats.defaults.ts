/** The NATS store's defaults (plain values: importing this loads nothing). */

/** Wait for one NATS KV request (and for `check()`), by default (ms). */
export const DEFAULT_NATS_TIMEOUT_MS = 5000;

/** How long a NATS save keeps retrying lost compare-and-swap races, by default (ms). */
export const DEFAULT_WRITE_BUDGET_MS = 10_000;

/** The NATS server's `max_payload` assumed when the connection does not report one (bytes). */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

/** The NATS store's KV bucket when `MEMORY_NATS_BUCKET` (or `--bucket`) is not given. */
export const DEFAULT_NATS_BUCKET = 'agent_memory';
