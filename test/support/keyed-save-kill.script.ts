/**
 * A process that saves `KILLED_TURN` under `KILLED_TURN_KEY` and stops at a point of the write,
 * printing `held` there so that its parent kills it (see `keyed-save-kill.ts`):
 *
 *   node -r @swc-node/register test/support/keyed-save-kill.script.ts <store JSON> <session> <hold> <writes>
 *
 * The hold is installed from outside the library, where the store's writes end (`writes`, a
 * `KeyedSaveWrites`): on file writes by wrapping the handles `open` of `node:fs/promises` gives
 * for the session file and its key copy, on KV publishes by wrapping the JetStream `publish` of
 * the backend's KV handle. The held call never returns; `held` is printed once it is reached and
 * the save's other writes that come before it (or, on NATS, beside it) are done.
 */
import type { FileHandle } from 'node:fs/promises';
import type { MemoryBackend } from '@agent-memory/memory';
import { driverOf, openBackend, type BackendSpec } from '@agent-memory/test-conformance';
import {
  KILLED_TURN,
  KILLED_TURN_KEY,
  type KeyedSaveHold,
  type KeyedSaveWrites,
} from './keyed-save-kill';

type Call = (...args: never[]) => Promise<unknown>;

/**
 * Wraps `owner[name]`: a call `isHeld` picks never returns; once a call `isOther` picks has
 * returned, and the held call was made, prints `held`.
 */
function hold(
  owner: Record<string, unknown>,
  name: string,
  isHeld: (args: unknown[]) => boolean,
  isOther: (args: unknown[]) => boolean,
): void {
  const real = owner[name] as Call;
  let heldCall = false;
  let otherDone = false;
  const report = () => {
    if (heldCall && otherDone) process.stdout.write('held\n');
  };
  owner[name] = async (...args: unknown[]) => {
    if (isHeld(args)) {
      heldCall = true;
      report();
      return new Promise(() => undefined);
    }
    const result = await real.apply(owner, args as never[]);
    if (isOther(args)) {
      otherDone = true;
      report();
    }
    return result;
  };
}

/** The write `isHeld` picks and the other one, as their paths or subjects. */
interface HeldWrites {
  held: string;
  other: string;
}

/** Installs the hold on the writes of `session` of `backend`, opened from `spec`. */
type InstallHold = (
  backend: MemoryBackend,
  spec: BackendSpec,
  pick: (session: string, keyCopy: string) => HeldWrites,
  session: string,
  where: KeyedSaveHold,
) => void;

/** A call that never returns, after printing `held`. */
function heldForever(): Promise<never> {
  process.stdout.write('held\n');
  return new Promise<never>(() => undefined);
}

/**
 * On file writes: the session file's handle opened for writing in place, and its key copy's
 * handle, get the hold. The store appends the key copy's line before it writes the session, so
 * a hold on the session's write finds the line written.
 */
function holdFileWrites(dir: string, session: string, where: KeyedSaveHold): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fs = require('node:fs/promises') as Record<string, unknown>;
  const file = `${dir}/${session}.json`;
  const realOpen = fs.open as (...args: unknown[]) => Promise<FileHandle>;
  fs.open = async (...args: unknown[]) => {
    const handle = await realOpen.apply(fs, args);
    const path = String(args[0]);
    if (path === `${file}.keys` && where === 'key-copy') handle.write = heldForever;
    if (path === file && args[1] === 'r+') holdSessionWrite(handle, where);
    return handle;
  };
}

function holdSessionWrite(handle: FileHandle, where: KeyedSaveHold): void {
  if (where === 'messages') handle.write = heldForever;
  if (where === 'unsynced-messages') handle.datasync = heldForever;
  if (where === 'torn-messages') {
    const write = handle.write.bind(handle) as (...args: unknown[]) => Promise<unknown>;
    handle.write = (async (data: Buffer, offset: number, length: number, position: number) => {
      await write(data, offset, Math.floor(length / 2), position);
      return heldForever();
    }) as unknown as FileHandle['write'];
  }
}

const installHold: Record<KeyedSaveWrites, InstallHold> = {
  'file-writes': (backend, spec, _pick, session, where) => {
    const dir = driverOf(spec).storagePath(backend);
    if (!dir) throw new Error(`the ${spec.kind} store keeps no files`);
    holdFileWrites(dir, session, where);
  },
  'kv-publishes': (backend, spec, pick, session) => {
    const bucket = spec.env.MEMORY_NATS_BUCKET;
    if (!bucket) throw new Error(`the ${spec.kind} spec names no MEMORY_NATS_BUCKET`);
    const js = (backend as unknown as { kv: { js: Record<string, unknown> } }).kv.js;
    const prefix = `$KV.${bucket}.`;
    const subjects = pick(`${prefix}${session}`, `${prefix}_idempotency.${session}`);
    hold(
      js,
      'publish',
      (args) => args[0] === subjects.held,
      (args) => args[0] === subjects.other,
    );
  },
};

async function main(): Promise<void> {
  const [storeJson, session, where, writes] = process.argv.slice(2) as [
    string,
    string,
    KeyedSaveHold,
    KeyedSaveWrites,
  ];
  const store = JSON.parse(storeJson) as BackendSpec;
  const backend = await openBackend(store);
  const pick = (target: string, copy: string): HeldWrites =>
    where === 'messages' ? { held: target, other: copy } : { held: copy, other: target };
  const install = installHold[writes];
  if (!install) throw new Error(`no hold on "${writes}"`);
  install(backend, store, pick, session, where);
  const memory = await backend.open(session);
  await memory.save(KILLED_TURN, { idempotencyKey: KILLED_TURN_KEY });
  throw new Error('the save returned: the hold was not reached');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
