import { describeAuditLogConformance } from '@agent-memory/conformance';
import { auditLogInitializer, natsAuditLog, natsInitializer } from '@agent-memory/test-conformance';

describeAuditLogConformance(auditLogInitializer(natsInitializer(), natsAuditLog));
