import { describeAuditLogConformance } from '@agent-memory/conformance';
import { auditLogInitializer, postgresInitializer } from '@agent-memory/test-conformance';

// The store's backends run the memory migrations, which create the `<table>_audit` table.
describeAuditLogConformance(auditLogInitializer(postgresInitializer()));
