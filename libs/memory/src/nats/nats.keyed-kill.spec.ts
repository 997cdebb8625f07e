/**
 * A keyed save killed with SIGKILL in the middle of its write (the session's compare-and-swap
 * sent but not its key copy, or the other way round), then retried after a restart: stored
 * exactly once.
 */
import { connect } from 'nats';
import { natsHarness } from '@agent-memory/test-conformance';
import { describeKeyedSaveKill } from '@agent-memory/test-support/keyed-save-kill';

describeKeyedSaveKill('NatsMemory', natsHarness(), async (store, session) => {
  if (store.kind !== 'nats') throw new Error('a NATS store');
  const nc = await connect({ servers: store.servers });
  try {
    const kv = await nc.jetstream().views.kv(store.bucket);
    return (await kv.get(session))!.json();
  } finally {
    await nc.close();
  }
});
