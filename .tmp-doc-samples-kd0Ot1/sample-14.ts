
import {
  describeBackendConformance,
  describeCompactionConformance,
  postgresHarness,
} from '@agent-memory/conformance';

describeBackendConformance('postgres', postgresHarness());
describeCompactionConformance('postgres', postgresHarness());

export {};
