import { describeAuditLogConformance } from '@agent-memory/conformance';
import { auditLogInitializer, natsInitializer } from '@agent-memory/test-conformance';

describeAuditLogConformance(auditLogInitializer(natsInitializer()));
