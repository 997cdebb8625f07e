import {
  describeBackendConformance,
  describeCompactionConformance,
  natsHarness,
} from '@agent-memory/conformance';

describeBackendConformance('nats', natsHarness());
describeCompactionConformance('nats', natsHarness());
