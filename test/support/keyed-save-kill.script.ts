/**
 * A process that saves `KILLED_TURN` under `KILLED_TURN_KEY` and stops at a point of the write,
 * printing `held` there so that its parent kills it (see `keyed-save-kill.ts`):
 *
 *   node -r @swc-node/register test/support/keyed-save-kill.script.ts <store JSON> <session> <hold> <writes>
 *
 * The hold is installed from outside the library, where the store's writes end (`writes`, a
 * `KeyedSaveWrites`): on file renames by wrapping `rename` of `node:fs/promises` (what the atomic
 * writes end with), on KV publishes by wrapping the JetStream `publish` of the backend's KV handle.
 * The held call never returns; the other write of the save is let through and `held` is printed
 * once it is done.
 */
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
) => void;

const installHold: Record<KeyedSaveWrites, InstallHold> = {
  'file-renames': (backend, spec, pick, session) => {
    const dir = driverOf(spec).storagePath(backend);
    if (!dir) throw new Error(`the ${spec.kind} store keeps no files`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require('node:fs/promises') as Record<string, unknown>;
    const file = `${dir}/${session}.json`;
    const paths = pick(file, `${file}.keys`);
    hold(
      fs,
      'rename',
      (args) => args[1] === paths.held,
      (args) => args[1] === paths.other,
    );
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
  install(backend, store, pick, session);
  const memory = await backend.open(session);
  await memory.save(KILLED_TURN, { idempotencyKey: KILLED_TURN_KEY });
  throw new Error('the save returned: the hold was not reached');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
