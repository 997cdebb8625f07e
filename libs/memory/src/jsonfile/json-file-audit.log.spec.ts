import { describeAuditLogConformance } from '@agent-memory/conformance';
import {
  auditLogInitializer,
  jsonFileAuditLog,
  jsonFileInitializer,
} from '@agent-memory/test-conformance';

describeAuditLogConformance(auditLogInitializer(jsonFileInitializer(), jsonFileAuditLog));
