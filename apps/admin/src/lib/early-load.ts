/**
 * What the early-load script hands the app. That script is inlined into `index.html` at build
 * time as a bundle of its own (`src/early-load.ts`), so it shares no module instance with the app:
 * the hand-off lives on the page's global object, under a registered symbol both bundles name.
 */

/** A GET started before the app mounted. */
export interface EarlyGet {
  token: string;
  response: Promise<Response>;
  startedAt: number;
  /** The parsed body once a 2xx answer has been read (for the early rows and the app's cache). */
  body?: unknown;
}

export interface EarlyLoad {
  /** The GETs started before the app, by URL; each is used once. */
  requests: Map<string, EarlyGet>;
  /** Settles once the first rows are drawn (at once when there is nothing to draw). */
  firstRows: Promise<void>;
  /** Starts the first view's other calls unless they have started (the app calls it as it loads). */
  startRest: () => void;
}

const HAND_OFF = Symbol.for('agent-memory.admin.early-load');

/** The page's hand-off (made empty on first use: without the early-load script, nothing waits). */
export function earlyLoad(): EarlyLoad {
  const global = globalThis as unknown as Record<symbol, EarlyLoad | undefined>;
  return (global[HAND_OFF] ??= {
    requests: new Map(),
    firstRows: Promise.resolve(),
    startRest: () => {},
  });
}
