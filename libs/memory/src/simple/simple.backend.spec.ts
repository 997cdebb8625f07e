import {
  describeBackendConformance,
  describeCompactionConformance,
  simpleHarness,
} from '@agent-memory/conformance';

describeBackendConformance('simple', simpleHarness());
describeCompactionConformance('simple', simpleHarness());
