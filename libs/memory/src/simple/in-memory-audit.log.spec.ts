import { InMemoryAuditLog } from '@agent-memory/memory';
import { describeAuditLogConformance, simpleHarness } from '@agent-memory/conformance';

describeAuditLogConformance(
  'simple',
  simpleHarness(),
  async (_created, limits) => new InMemoryAuditLog(limits),
  {
    shared: false,
  },
);
