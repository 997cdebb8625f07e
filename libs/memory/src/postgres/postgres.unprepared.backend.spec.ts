import { describeMemoryBackendConformance } from '@agent-memory/conformance';
import { postgresInitializer } from '@agent-memory/test-conformance';

// Behind PgBouncer in transaction mode (before 1.21) named prepared statements must be off: the
// whole contract holds with every statement unnamed. (The writer processes are fewer: what they
// add over the prepared run is the statements, not the load.)
describeMemoryBackendConformance(
  postgresInitializer({ name: 'postgres without prepared statements', preparedStatements: false }),
  { processes: { writers: 4, turns: 25 } },
);
