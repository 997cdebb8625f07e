/**
 * The parent's side of `keyed-save-kill.script.ts`: a process that saves one batch under an
 * idempotency key and is killed with SIGKILL at a point the test picks, held there
 * deterministically (no timing luck), so that a retry in a fresh backend can be checked to store
 * the batch exactly once.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { assistantMessage, userMessage, type Message } from '@agent-memory/memory';
import { texts } from '@agent-memory/conformance';
import {
  openBackend,
  type BackendSpec,
  type ConformanceHarness,
} from '@agent-memory/test-conformance';

/**
 * Where the saving process is held when it is killed:
 * - `messages`: the session's own write (the file's rename, the KV compare-and-swap) is held and
 *   the key copy beside it is written: the batch is not stored, its key copy says it is.
 * - `key-copy`: the key copy's write is held and the session's write is done: the batch is
 *   stored with its key marked on it, the copy does not know the key.
 */
export type KeyedSaveHold = 'messages' | 'key-copy';

/**
 * How the store writes a session and its key copy, where the saving process is held:
 * - `file-renames`: each file is written under a temporary name and renamed into place;
 * - `kv-publishes`: each key is a JetStream publish to `$KV.<bucket>.<key>`.
 */
export type KeyedSaveWrites = 'file-renames' | 'kv-publishes';

/** The batch the killed process saves, and its key. */
export const KILLED_TURN: readonly Message[] = [
  userMessage('the question the killed process saved'),
  assistantMessage('the answer the killed process saved'),
];
export const KILLED_TURN_KEY = 'turn-killed';

const SCRIPT = join(__dirname, 'keyed-save-kill.script.ts');
const REPO_ROOT = join(__dirname, '../..');

/**
 * Runs the script on `session` of `store`, waits until it says it is held at `hold`, then kills
 * it with SIGKILL and waits for it to be gone.
 * @throws Error with the script's output when it exits before it is held.
 */
export async function saveAndKill(
  store: BackendSpec,
  session: string,
  hold: KeyedSaveHold,
  writes: KeyedSaveWrites,
): Promise<void> {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', SCRIPT, JSON.stringify(store), session, hold, writes],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('held\n')) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code, signal) =>
      reject(
        new Error(`the saving process exited (${code ?? signal}) before it was held: ${output}`),
      ),
    );
  });
  child.kill('SIGKILL');
  await exited;
}

/** Reads what the store holds for `session`, parsed, as another program would see it. */
export type RawSessionReader = (store: BackendSpec, session: string) => Promise<unknown>;

/**
 * The kill -9 tests of a store with a key copy beside the session (JSON files, NATS): for each
 * hold, a process saving a keyed batch is killed there, then a fresh backend (as after a restart)
 * retries the save with the same key. The batch must be stored exactly once, the retry answer
 * with the batch's cursors (`replayed` when the killed write had stored it), and the session stay
 * the plain array Phero reads.
 */
export function describeKeyedSaveKill(
  name: string,
  harness: ConformanceHarness,
  store: { writes: KeyedSaveWrites; readRaw: RawSessionReader },
): void {
  const { writes, readRaw } = store;
  describe(`${name}: a keyed save killed mid-write (kill -9), then retried`, () => {
    let counter = 0;
    afterAll(() => harness.destroy?.());

    it.each<[KeyedSaveHold, boolean]>([
      ['messages', false],
      ['key-copy', true],
    ])(
      'held at the write of its %s: the retry stores the batch once (replayed: %s)',
      async (at, replayed) => {
        const created = await harness.create();
        const session = `killed-${at}-${process.pid}-${++counter}`;
        try {
          await (await created.backend.open(session)).save([userMessage('before')]);
          await saveAndKill(created.spec!, session, at, writes);

          const restarted = await openBackend(created.spec!);
          try {
            const memory = await restarted.open(session);
            const retry = await memory.save(KILLED_TURN, { idempotencyKey: KILLED_TURN_KEY });
            expect(retry).toEqual({ first: 2, last: 3, replayed });
            expect(await memory.save(KILLED_TURN, { idempotencyKey: KILLED_TURN_KEY })).toEqual({
              ...retry,
              replayed: true,
            });
            const entries = await memory.entries();
            expect(entries.map((e) => e.cursor)).toEqual([1, 2, 3]);
            expect(texts(entries.map((e) => e.message))).toEqual(['before', ...texts(KILLED_TURN)]);
            expect(Array.isArray(await readRaw(created.spec!, session))).toBe(true);
          } finally {
            await restarted.close();
          }
        } finally {
          await created.destroy();
        }
      },
    );
  });
}
