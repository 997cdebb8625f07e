import { postgresBackend, type PostgresBackend } from '@agent-memory/memory/postgres';
import { describeBackendConformance } from '../../../../test/conformance/backend.conformance';
import { TestSchemas } from '../../../../test/support/postgres';

const schemas = new TestSchemas('pgconf');
afterAll(() => schemas.cleanup());

describeBackendConformance('postgres', {
  create: (opts) => postgresBackend({ url: schemas.url, table: schemas.nextTable(), ...opts }),
  reopen: (backend, opts) =>
    postgresBackend({
      url: schemas.url,
      table: (backend as PostgresBackend).tables.table,
      ...opts,
    }),
});

// Behind PgBouncer in transaction mode (before 1.21) named prepared statements must be off: the
// whole contract holds with every statement unnamed.
describeBackendConformance('postgres without prepared statements', {
  create: (opts) =>
    postgresBackend({
      url: schemas.url,
      table: schemas.nextTable(),
      preparedStatements: false,
      ...opts,
    }),
  reopen: (backend, opts) =>
    postgresBackend({
      url: schemas.url,
      table: (backend as PostgresBackend).tables.table,
      preparedStatements: false,
      ...opts,
    }),
});
