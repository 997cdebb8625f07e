/**
 * A keyed save killed with SIGKILL in the middle of its write (the session's compare-and-swap
 * sent but not its key copy, or the other way round), then retried after a restart: stored
 * exactly once.
 */
import { connect } from 'nats';
import { natsHarness } from '@agent-memory/test-conformance';
import { settingsFrom } from '@agent-memory/test-support/isolated-stores';
import { describeKeyedSaveKill } from '@agent-memory/test-support/keyed-save-kill';
import { natsDriver } from './nats.driver';

describeKeyedSaveKill('NatsMemory', natsHarness(), {
  writes: 'kv-publishes',
  holds: [
    ['messages', false],
    ['key-copy', true],
  ],
  readRaw: async (store, session) => {
    const { url, bucket } = settingsFrom(natsDriver, store.env);
    const nc = await connect({ servers: url });
    try {
      const kv = await nc.jetstream().views.kv(bucket);
      return (await kv.get(session))!.json();
    } finally {
      await nc.close();
    }
  },
});
