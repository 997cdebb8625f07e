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
 * - `messages`: the session's own write (a file's rename or write, the KV compare-and-swap) is
 *   held, and the key copy beside it is written when the store writes it first or at once.
 * - `key-copy`: the key copy's write is held; the session's write is done when the store writes
 *   it first or at once (NATS), not yet when the copy goes first (JSON files' appends).
 * - `torn-messages`: half of the session's write is written, then it is held (a crash tearing it).
 * - `unsynced-messages`: the session's write is done and its fdatasync is held.
 */
export type KeyedSaveHold = 'messages' | 'key-copy' | 'torn-messages' | 'unsynced-messages';

/**
 * How the store writes a session and its key copy, where the saving process is held:
 * - `file-writes`: positional writes to the session file and appends to its key copy
 *   (`node:fs/promises` file handles), each followed by an fdatasync;
 * - `kv-publishes`: each key is a JetStream publish to `$KV.<bucket>.<key>`.
 */
export type KeyedSaveWrites = 'file-writes' | 'kv-publishes';

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
 * hold, a process saving a keyed batch into a session of one message is killed there, then a fresh backend (as after a restart)
 * retries the save with the same key. The batch must be stored exactly once, the retry answer
 * with the batch's cursors (`replayed` when the killed write had stored it), and the session stay
 * the plain array Phero reads.
 */
export function describeKeyedSaveKill(
  name: string,
  harness: ConformanceHarness,
  store: {
    writes: KeyedSaveWrites;
    readRaw: RawSessionReader;
    /** Each hold tried, and whether the retry finds the batch stored (`replayed`). */
    holds: ReadonlyArray<[KeyedSaveHold, boolean]>;
  },
): void {
  const { writes, readRaw, holds } = store;
  describe(`${name}: a keyed save killed mid-write (kill -9), then retried`, () => {
    let counter = 0;
    afterAll(() => harness.destroy?.());

    it.each<[KeyedSaveHold, boolean]>([...holds])(
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
