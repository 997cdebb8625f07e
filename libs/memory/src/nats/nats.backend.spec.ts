import { natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import {
  describeBackendConformance,
  type ConformanceHarness,
} from '../../../../test/conformance/backend.conformance';
import { describeCompactionConformance } from '../../../../test/conformance/compaction.conformance';
import { TestBuckets } from '../../../../test/support/nats';
import { testNatsUrl } from '../../../../test/support/services';

const buckets = new TestBuckets('conf');
afterAll(() => buckets.cleanup());

const harness: ConformanceHarness = {
  create: (opts) => natsBackend({ servers: testNatsUrl(), bucket: buckets.next(), ...opts }),
  reopen: (backend, opts) =>
    natsBackend({ servers: testNatsUrl(), bucket: (backend as NatsBackend).bucket, ...opts }),
  prunesByDefault: true,
};

describeBackendConformance('nats', harness);
describeCompactionConformance('nats', harness);
