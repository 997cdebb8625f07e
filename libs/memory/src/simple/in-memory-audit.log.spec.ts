import { describeAuditLogConformance } from '@agent-memory/conformance';
import { inMemoryAuditLogInitializer } from '@agent-memory/test-conformance';

describeAuditLogConformance(inMemoryAuditLogInitializer());
