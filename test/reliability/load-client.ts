/**
 * Load on a running admin server with autocannon: appends (each message text unique, recording
 * which were acknowledged, per connection, in order) or reads, on one session or spread over many,
 * and the read-back check that every acknowledged append is stored exactly once, in order.
 */
import autocannon from 'autocannon';

export interface LoadResult {
  scenario: string;
  requests: number;
  throughputPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx answers, connection errors and timeouts. */
  errors: number;
  /** Answers that were not 2xx, by status, such as `409: 12`. */
  failedStatuses: string;
  /** Texts acknowledged (201), per autocannon connection, in the order they were sent. */
  acknowledged: Map<number, string[]>;
}

export interface LoadOptions {
  url: string;
  token: string;
  scenario: string;
  mode: 'append' | 'read';
  /** Sessions the requests are spread over (`load-0` … `load-<n-1>`). */
  sessions: number;
  durationS: number;
  connections: number;
  /** Prefix of the session ids (one per backend run). */
  prefix: string;
}

interface ConnectionContext {
  connection?: number;
  sent?: string;
}

/** Runs one bounded scenario. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let counter = 0;
  let connections = 0;
  const acknowledged = new Map<number, string[]>();
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationS,
    pipelining: 1,
    timeout: 10,
    headers: {
      authorization: `Bearer ${options.token}`,
      'content-type': 'application/json',
    },
    requests: [
      {
        setupRequest: (request: any, context: ConnectionContext) => {
          context.connection ??= connections++;
          const n = counter++;
          const id = `${options.prefix}-${n % options.sessions}`;
          if (options.mode === 'read') {
            return { ...request, method: 'GET', path: `/api/sessions/${id}` };
          }
          const text = `${options.scenario}#${context.connection}#${n}`;
          context.sent = text;
          return {
            ...request,
            method: 'POST',
            path: `/api/sessions/${id}/messages`,
            body: JSON.stringify({
              messages: [{ role: 'user', parts: [{ type: 'text', text }] }],
            }),
          };
        },
        onResponse: (status: number, _body: string, context: ConnectionContext) => {
          if (options.mode !== 'append' || status !== 201 || !context.sent) return;
          const list = acknowledged.get(context.connection!) ?? [];
          list.push(context.sent);
          acknowledged.set(context.connection!, list);
          context.sent = undefined;
        },
      } as any,
    ],
  });
  return {
    scenario: options.scenario,
    requests: result.requests.total,
    throughputPerS: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    failedStatuses: Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, { count }]) => `${status}: ${count}`)
      .join(', '),
    acknowledged,
  };
}

/** Every message text of a session, oldest first, read page by page over HTTP. */
export async function readAllTexts(
  url: string,
  token: string,
  sessionId: string,
): Promise<string[]> {
  const texts: string[] = [];
  let after: number | null = null;
  for (;;) {
    const query: string = after === null ? 'limit=500' : `limit=500&after=${after}`;
    const response = await fetch(`${url}/api/sessions/${sessionId}/messages?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status === 404) return texts;
    if (response.status !== 200) throw new Error(`reading ${sessionId}: ${response.status}`);
    const page = (await response.json()) as {
      items: { message: { parts: { type: string; text?: string }[] } }[];
      next: number | null;
    };
    for (const item of page.items) texts.push(item.message.parts[0]?.text ?? '');
    if (page.next === null) return texts;
    after = page.next;
  }
}

/**
 * Checks the stored log against what was acknowledged: every acknowledged text present exactly
 * once, and each connection's texts in the order it sent them.
 * @returns counts of missing, duplicated and out-of-order texts (all 0 when sound).
 */
export function checkReadBack(
  acknowledged: Map<number, string[]>,
  stored: string[],
): { acknowledged: number; missing: number; duplicated: number; outOfOrder: number } {
  const positions = new Map<string, number[]>();
  stored.forEach((text, index) => {
    const list = positions.get(text) ?? [];
    list.push(index);
    positions.set(text, list);
  });
  let total = 0;
  let missing = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  for (const texts of acknowledged.values()) {
    let last = -1;
    for (const text of texts) {
      total++;
      const at = positions.get(text);
      if (!at) {
        missing++;
        continue;
      }
      if (at.length > 1) duplicated++;
      if (at[0]! < last) outOfOrder++;
      last = at[0]!;
    }
  }
  return { acknowledged: total, missing, duplicated, outOfOrder };
}
