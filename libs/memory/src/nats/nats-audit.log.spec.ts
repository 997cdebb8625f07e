import { natsAuditLog, type NatsBackend } from '@agent-memory/memory/nats';
import { describeAuditLogConformance, natsHarness } from '@agent-memory/conformance';

describeAuditLogConformance(
  'nats',
  natsHarness(),
  async (created, limits, replica) => {
    if (created.spec?.kind !== 'nats') throw new Error('the NATS harness names a bucket');
    const backend = (replica ? await created.reopen!() : created.backend) as NatsBackend;
    return natsAuditLog({ connection: backend.connection, bucket: created.spec.bucket, limits });
  },
  { shared: true },
);
