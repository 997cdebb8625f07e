/**
 * A process that saves `KILLED_TURN` under `KILLED_TURN_KEY` and stops at a point of the write,
 * printing `held` there so that its parent kills it (see `keyed-save-kill.ts`):
 *
 *   node -r @swc-node/register test/support/keyed-save-kill.script.ts <store JSON> <session> <hold>
 *
 * The hold is installed from outside the library: on JSON files by wrapping `rename` of
 * `node:fs/promises` (what the atomic writes end with), on NATS by wrapping the JetStream
 * `publish` of the backend's KV handle. The held call never returns; the other write of the save
 * is let through and `held` is printed once it is done.
 */
import { openBackend, type BackendSpec } from '@agent-memory/test-conformance';
import { KILLED_TURN, KILLED_TURN_KEY, type KeyedSaveHold } from './keyed-save-kill';

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

async function main(): Promise<void> {
  const [storeJson, session, where] = process.argv.slice(2) as [string, string, KeyedSaveHold];
  const store = JSON.parse(storeJson) as BackendSpec;
  const backend = await openBackend(store);
  const held = (target: string, copy: string) =>
    where === 'messages' ? { held: target, other: copy } : { held: copy, other: target };
  if (store.kind === 'jsonfile') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require('node:fs/promises') as Record<string, unknown>;
    const file = `${store.dir}/${session}.json`;
    const paths = held(file, `${file}.keys`);
    hold(
      fs,
      'rename',
      (args) => args[1] === paths.held,
      (args) => args[1] === paths.other,
    );
  } else if (store.kind === 'nats') {
    const js = (backend as unknown as { kv: { js: Record<string, unknown> } }).kv.js;
    const prefix = `$KV.${store.bucket}.`;
    const subjects = held(`${prefix}${session}`, `${prefix}_idempotency.${session}`);
    hold(
      js,
      'publish',
      (args) => args[0] === subjects.held,
      (args) => args[0] === subjects.other,
    );
  } else {
    throw new Error(`no hold for a ${store.kind} store`);
  }
  const memory = await backend.open(session);
  await memory.save(KILLED_TURN, { idempotencyKey: KILLED_TURN_KEY });
  throw new Error('the save returned: the hold was not reached');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
