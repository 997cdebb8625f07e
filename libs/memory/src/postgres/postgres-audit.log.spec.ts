import { PostgresAuditLog, type PostgresBackend } from '@agent-memory/memory/postgres';
import { describeAuditLogConformance, postgresHarness } from '@agent-memory/conformance';

// The harness's backends run the memory migrations, which create the `<table>_audit` table.
describeAuditLogConformance(
  'postgres',
  postgresHarness(),
  async (created, limits, replica) => {
    if (created.spec?.kind !== 'postgres') throw new Error('the PostgreSQL harness names a table');
    const backend = (replica ? await created.reopen!() : created.backend) as PostgresBackend;
    return new PostgresAuditLog(backend.dataSource, { table: created.spec.table, limits });
  },
  { shared: true },
);
