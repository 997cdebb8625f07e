import {
  describeBackendConformance,
  describeCompactionConformance,
  jsonFileHarness,
} from '@agent-memory/conformance';

describeBackendConformance('jsonfile', jsonFileHarness());
describeCompactionConformance('jsonfile', jsonFileHarness());
