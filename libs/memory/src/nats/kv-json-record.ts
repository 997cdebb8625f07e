import type { KV } from 'nats';
import { ConcurrentUpdateError } from '../core/errors';
import { isWrongLastSequence, natsRequest } from './nats-request.error';

/** Compare-and-swap rounds {@link swapJsonRecord} makes: a round is lost only to another write of the key. */
const SWAP_ATTEMPTS = 10;

/** A JSON value of one KV key, with the revision it was read at (0: no value). */
export interface JsonRecord<T> {
  value: T | null;
  revision: number;
}

/**
 * Reads the JSON value of `key`; a deleted, purged or emptied key reads as null.
 * @param what the record, for a failure's message: `a lease`.
 * @throws NatsRequestError when the server does not answer.
 */
export async function readJsonRecord<T>(kv: KV, key: string, what: string): Promise<JsonRecord<T>> {
  const entry = await natsRequest(`read ${what}`, null, () => kv.get(key));
  const value =
    entry && entry.operation === 'PUT' && entry.value.length > 0
      ? (JSON.parse(entry.string()) as T)
      : null;
  return { value, revision: entry?.revision ?? 0 };
}

/**
 * Writes `next` to `key` (null empties it) at the revision read, unless `refuse` says no to the
 * value stored: one compare-and-swap, so a write in between means a re-read and another round.
 * @param session the session the record is about, for errors (null: none).
 * @returns whether it wrote.
 * @throws ConcurrentUpdateError after {@link SWAP_ATTEMPTS} lost rounds.
 */
export async function swapJsonRecord<T>(
  kv: KV,
  key: string,
  next: T | null,
  refuse: (stored: T | null) => boolean,
  opts: { what: string; session: string | null },
): Promise<boolean> {
  const value = next === null ? '' : JSON.stringify(next);
  for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
    const stored = await readJsonRecord<T>(kv, key, opts.what);
    if (refuse(stored.value)) return false;
    try {
      await natsRequest(`write ${opts.what}`, opts.session, () =>
        stored.revision === 0 ? kv.create(key, value) : kv.update(key, value, stored.revision),
      );
      return true;
    } catch (error) {
      // `create` of a key another process just created fails the same way: read again.
      if (!isWrongLastSequence(error)) throw error;
    }
  }
  throw new ConcurrentUpdateError(opts.session ?? key, SWAP_ATTEMPTS);
}
