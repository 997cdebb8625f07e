import { simpleBackend } from '@agent-memory/memory';
import { describeBackendConformance } from '../../../../test/conformance/backend.conformance';

describeBackendConformance('simple', {
  create: async (opts) => simpleBackend({ capacity: 1000, ...opts }),
});
