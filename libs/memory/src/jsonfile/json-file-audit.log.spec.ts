import { describeAuditLogConformance } from '@agent-memory/conformance';
import { auditLogInitializer, jsonFileInitializer } from '@agent-memory/test-conformance';

describeAuditLogConformance(auditLogInitializer(jsonFileInitializer()));
