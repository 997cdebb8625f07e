/**
 * How a vitest project without `globals: true` runs the suite: the runner's functions passed in.
 * Only type-checked (by the consumer spec, against the published declarations, without jest's
 * types); the command runs the same calls.
 */
import {
  describeMemoryBackendConformance,
  useConformanceBackends,
} from '@agent-memory/conformance';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import store from './store';

const runner = { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach };

describeMemoryBackendConformance(store, { runner });

describe('the store, beyond the contract', () => {
  const backends = useConformanceBackends(store, { runner, idPrefix: 'own' });

  it('names its sessions with its own prefix', async () => {
    expect((await backends.session()).id).toMatch(/^own-/);
  });
});
