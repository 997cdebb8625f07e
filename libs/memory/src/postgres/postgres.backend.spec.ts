import {
  describeBackendConformance,
  describeCompactionConformance,
  postgresHarness,
} from '@agent-memory/conformance';

describeBackendConformance('postgres', postgresHarness());
describeCompactionConformance('postgres', postgresHarness());

// Behind PgBouncer in transaction mode (before 1.21) named prepared statements must be off: the
// whole contract holds with every statement unnamed.
describeBackendConformance(
  'postgres without prepared statements',
  postgresHarness({ preparedStatements: false }),
);
