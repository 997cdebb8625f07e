import { randomBytes } from 'node:crypto';

/** Random bytes drawn at once: one system call for many names instead of one each. */
const POOL_BYTES = 6 * 512;
let pool = Buffer.alloc(0);
let used = 0;

/**
 * 12 random hex digits (6 bytes), for the names of temp files and the nonces of locks: taken from
 * a pool of random bytes refilled when used up, since a save needs several and drawing each one
 * apart is a system call.
 */
export function randomHex12(): string {
  if (used + 6 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += 6;
  return pool.toString('hex', used - 6, used);
}
