import { NatsError, nanos, type NatsConnection } from 'nats';
import {
  auditPageSize,
  DEFAULT_AUDIT_LOG_LIMITS,
  type AuditEntry,
  type AuditLog,
  type AuditLogLimits,
  type AuditLogPage,
  type NewAuditEntry,
} from '../core/audit-log.interface';
import { DEFAULT_NATS_TIMEOUT_MS } from './nats.defaults';
import { InvalidQueryError } from '../core/errors';
import { natsRequest } from './nats-request.error';

/** JetStream's error code for a stream name taken with another configuration. */
const STREAM_NAME_IN_USE = 10058;
/** JetStream's error code for a message that is not (or no longer) in the stream. */
const NO_MESSAGE_FOUND = 10037;

/** Options of {@link natsAuditLog}. */
export interface NatsAuditLogOptions {
  /** The connection (such as `natsBackend(...).connection`); not closed here. */
  connection: NatsConnection;
  /** The sessions' KV bucket: the log is the stream `AUDIT_<bucket>` on subject `agent_memory.audit.<bucket>`. */
  bucket: string;
  /** What to keep (the stream's `max_msgs` and `max_age`); default {@link DEFAULT_AUDIT_LOG_LIMITS}. */
  limits?: Partial<AuditLogLimits>;
  /** Wait for one JetStream request (ms). Default {@link DEFAULT_NATS_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** The stream name of the audit log next to the KV bucket `bucket`. */
export function natsAuditStream(bucket: string): string {
  return `AUDIT_${bucket}`;
}

/**
 * The audit log as a JetStream stream next to the sessions' bucket, one message per entry, its
 * id the stream sequence; JetStream itself drops what is past `max_msgs` (`maxEntries`) or
 * `max_age` (`maxAgeMs`). Created (file storage) when missing; its limits are updated to the
 * given ones when they differ.
 * @throws NatsRequestError when the stream cannot be created or bound.
 */
export async function natsAuditLog(options: NatsAuditLogOptions): Promise<AuditLog> {
  const timeout = options.timeoutMs ?? DEFAULT_NATS_TIMEOUT_MS;
  const limits = { ...DEFAULT_AUDIT_LOG_LIMITS, ...options.limits };
  const stream = natsAuditStream(options.bucket);
  const subject = `agent_memory.audit.${options.bucket}`;
  const jsm = await natsRequest(`open stream "${stream}"`, null, () =>
    options.connection.jetstreamManager({ timeout }),
  );
  const bounds = { max_msgs: limits.maxEntries, max_age: nanos(limits.maxAgeMs) };
  await natsRequest(`create stream "${stream}"`, null, async () => {
    try {
      await jsm.streams.add({ name: stream, subjects: [subject], ...bounds });
    } catch (error) {
      if (!(error instanceof NatsError) || error.api_error?.err_code !== STREAM_NAME_IN_USE) {
        throw error;
      }
      await jsm.streams.update(stream, bounds);
    }
  });
  const js = options.connection.jetstream({ timeout });
  /** The entry at `seq`, or null when it is gone (dropped by the limits). */
  const entryAt = async (seq: number): Promise<AuditEntry | null> => {
    try {
      const message = await jsm.streams.getMessage(stream, { seq });
      return { ...(message.json() as NewAuditEntry), id: String(seq) };
    } catch (error) {
      if (error instanceof NatsError && error.api_error?.err_code === NO_MESSAGE_FOUND) return null;
      throw error;
    }
  };
  return {
    async append(entry) {
      const ack = await natsRequest('append an audit entry', entry.sessionId, () =>
        js.publish(subject, JSON.stringify(entry)),
      );
      return { ...entry, id: String(ack.seq) };
    },
    async list(listOptions = {}): Promise<AuditLogPage> {
      const limit = auditPageSize(listOptions.limit);
      const after = listOptions.after ?? null;
      if (after !== null && !/^\d{1,15}$/.test(after)) {
        throw new InvalidQueryError('after', 'not a cursor of this audit log');
      }
      const { state } = await natsRequest('list the audit log', null, () =>
        jsm.streams.info(stream),
      );
      const oldest = Date.now() - limits.maxAgeMs;
      const items: AuditEntry[] = [];
      // Newest first: read back from the sequence before `after`, a page's worth at a time.
      let seq = after === null ? state.last_seq : Number(after) - 1;
      while (items.length <= limit && seq >= state.first_seq && seq > 0) {
        const batch: number[] = [];
        for (
          ;
          batch.length < limit + 1 - items.length && seq >= state.first_seq && seq > 0;
          seq--
        ) {
          batch.push(seq);
        }
        const read = await natsRequest('list the audit log', null, () =>
          Promise.all(batch.map(entryAt)),
        );
        for (const entry of read) {
          if (entry && Date.parse(entry.at) >= oldest) items.push(entry);
        }
      }
      const page = items.slice(0, limit);
      return { items: page, next: items.length > limit ? page[page.length - 1]!.id : null };
    },
  };
}
