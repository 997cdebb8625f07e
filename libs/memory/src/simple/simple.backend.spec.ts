import { simpleBackend } from '@agent-memory/memory';
import {
  describeBackendConformance,
  type ConformanceHarness,
} from '../../../../test/conformance/backend.conformance';
import { describeCompactionConformance } from '../../../../test/conformance/compaction.conformance';

const harness: ConformanceHarness = {
  create: async (opts) => simpleBackend({ capacity: 1000, ...opts }),
};

describeBackendConformance('simple', harness);
describeCompactionConformance('simple', harness);
