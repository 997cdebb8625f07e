import {
  describeRetentionConformance,
  jsonFileHarness,
  natsHarness,
  postgresHarness,
  simpleHarness,
} from '@agent-memory/conformance';

describeRetentionConformance('simple', simpleHarness());
describeRetentionConformance('jsonfile', jsonFileHarness());
describeRetentionConformance('postgres', postgresHarness());
describeRetentionConformance('nats', natsHarness());
