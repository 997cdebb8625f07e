import { unlessCorrupt } from '../core/session-info';
import {
  consumerOpts,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type KV,
} from 'nats';
import type { ListSessionsQuery, SessionInfo, SessionPage } from '../core/backend.interface';
import { isValidSessionId } from '../core/session-id';
import {
  compareNewestFirst,
  decodeListToken,
  listLimit,
  matchesListQuery,
} from '../core/session-list';
import { natsRequest } from './nats-request.error';
import { loadedSession, sessionInfoOf } from './nats-session-value';

/** Stream sequences read by the first window of a page, per session asked for (it doubles after). */
const FIRST_WINDOW_PER_ITEM = 2;

/** What `list` needs of a bucket: its KV handle, JetStream handles and names. */
export interface NatsListSource {
  kv: KV;
  js: JetStreamClient;
  jsm: JetStreamManager;
  bucket: string;
  /** Longest wait for the next message of a window, in milliseconds. */
  timeoutMs: number;
}

/** A session found by a list walk, with the stream sequence of its latest revision. */
interface Found {
  info: SessionInfo;
  seq: number;
}

/**
 * One page of sessions, newest first, read from the bucket's stream without touching the other
 * sessions. A KV bucket is a stream where each key's latest revision sits at its own sequence and
 * (with history 1, which the backend creates) older revisions are gone, so the most recently
 * written sessions are the last sequences of the stream: a page reads windows of sequences
 * backwards from the end (or from the token's position), doubling the window until it has found
 * the page, and decodes only those values. With `search`, windows grow until enough sessions
 * match, which may read the whole bucket.
 *
 * The order is the stream's: by `updatedAt` (the server's time of the latest revision), ties in
 * the order the server stored them. The `next` token is the sequence of the page's last session,
 * so it stays valid while sessions are written: a session written after the token was made moves
 * above it and is not repeated on later pages.
 * @throws the core's list-query error (`decodeListToken`, `listLimit`) when `after` is not a token
 *   of a list or `limit` is out of range.
 */
export async function listNatsSessions(
  source: NatsListSource,
  q: ListSessionsQuery,
): Promise<SessionPage> {
  // This list's tokens are stream sequences; the core checks the rest of the query.
  const limit = listLimit({ ...q, after: undefined });
  const after = q.after === undefined || q.after === null ? null : natsTokenSequence(q.after);
  // A token in the core's keyset form (`updatedAt`, `id`) is honoured by filtering from the end.
  const position = q.after && after === null ? decodeListToken(q.after) : null;
  const stream = `KV_${source.bucket}`;
  const prefix = `$KV.${source.bucket}.`;
  const info = await natsRequest('read the bucket stream', null, () =>
    source.jsm.streams.info(stream),
  );
  const { first_seq: firstSeq, last_seq: lastSeq, messages } = info.state;
  // A bucket someone created with history > 1 keeps older revisions: those must not be listed.
  const keepsHistory = (info.config.max_msgs_per_subject ?? 1) !== 1;

  const found: Found[] = [];
  const seen = new Set<string>();
  let high = after === null ? lastSeq : Math.min(after - 1, lastSeq);
  const density = messages > 0 ? messages / Math.max(1, lastSeq - firstSeq + 1) : 1;
  let window = Math.ceil(((limit + 1) * FIRST_WINDOW_PER_ITEM) / density);
  while (found.length <= limit && high >= firstSeq && messages > 0) {
    const low = Math.max(firstSeq, high - window + 1);
    const batch = await readSequences(source.js, stream, `${prefix}>`, low, high, source.timeoutMs);
    for (let i = batch.length - 1; i >= 0 && found.length <= limit; i--) {
      const msg = batch[i]!;
      const key = msg.subject.substring(prefix.length);
      if (seen.has(key)) continue;
      seen.add(key);
      const session = await listable(source, key, msg, keepsHistory);
      if (!session || !matchesListQuery(session, q)) continue;
      if (position && compareNewestFirst(session, position) <= 0) continue;
      found.push({ info: session, seq: msg.seq });
    }
    high = low - 1;
    window *= 2;
  }
  const items = found.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map((item) => item.info),
    next: found.length > limit && last ? encodeNatsListToken(last.seq) : null,
  };
}

/** The info of the session at `msg`, or null when it is not a listable session. */
async function listable(
  source: NatsListSource,
  key: string,
  msg: JsMsg,
  keepsHistory: boolean,
): Promise<SessionInfo | null> {
  if (!isValidSessionId(key)) return null;
  const operation = msg.headers?.get('KV-Operation') || 'PUT';
  if (operation !== 'PUT') return null;
  if (keepsHistory) {
    const latest = await natsRequest('list', key, () => source.kv.get(key));
    if (latest?.revision !== msg.seq) return null;
  }
  return unlessCorrupt(() =>
    sessionInfoOf(
      key,
      loadedSession(key, {
        operation: 'PUT',
        value: msg.data,
        revision: msg.seq,
        created: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
      }),
    ),
  );
}

/**
 * The messages stored at sequences `low`…`high` of `stream` (deleted sequences are skipped), in
 * order, through an ordered push consumer that is removed once they are read. The read ends at the
 * message at `high` or the first one past it; the message counts the server reports are not used
 * (nats-server 2.9 under-counts them for a filtered consumer on a bucket that keeps history). When
 * `high` itself is gone and nothing follows it, the read ends after `idleMs` without a message.
 */
async function readSequences(
  js: JetStreamClient,
  stream: string,
  subject: string,
  low: number,
  high: number,
  idleMs: number,
): Promise<JsMsg[]> {
  return natsRequest('list', null, async () => {
    const opts = consumerOpts();
    opts.bindStream(stream);
    opts.orderedConsumer();
    opts.startSequence(low);
    const sub = await js.subscribe(subject, opts);
    const read: JsMsg[] = [];
    let timer: NodeJS.Timeout | undefined;
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => sub.unsubscribe(), idleMs);
      timer.unref();
    };
    try {
      idle();
      for await (const msg of sub) {
        if (msg.seq > high) break;
        read.push(msg);
        if (msg.seq === high) break;
        idle();
      }
    } finally {
      clearTimeout(timer);
      sub.unsubscribe();
    }
    return read;
  });
}

function encodeNatsListToken(seq: number): string {
  return Buffer.from(JSON.stringify(['nats', seq])).toString('base64url');
}

/** The stream sequence a token of this list stands for; null when it is not one. */
function natsTokenSequence(token: string): number | null {
  try {
    const [kind, seq] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (kind === 'nats' && Number.isSafeInteger(seq) && (seq as number) > 0) return seq as number;
  } catch {
    // not one of ours
  }
  return null;
}
