import { parseApiConfig } from '../config/api-config';
import { auditLogLimits } from './audit-log.factory';

const DAY_MS = 86_400_000;
const limitsOf = (env: Record<string, string>) =>
  auditLogLimits(parseApiConfig({ MEMORY_BACKEND: 'simple', ...env }));

describe('the audit log bounds', () => {
  it('are AUDIT_MAX_ENTRIES and AUDIT_MAX_AGE_MS without a retention policy', () => {
    expect(limitsOf({ AUDIT_MAX_ENTRIES: '500', AUDIT_MAX_AGE_MS: String(30 * DAY_MS) })).toEqual({
      maxEntries: 500,
      maxAgeMs: 30 * DAY_MS,
    });
  });

  it('keep entries no longer than the retention policy keeps sessions', () => {
    expect(limitsOf({ MEMORY_RETENTION_MAX_AGE: '7d' }).maxAgeMs).toBe(7 * DAY_MS);
    // The audit's own limit stays when it is the shorter one.
    expect(
      limitsOf({ MEMORY_RETENTION_MAX_AGE: '52w', AUDIT_MAX_AGE_MS: String(DAY_MS) }).maxAgeMs,
    ).toBe(DAY_MS);
  });

  it('are not shortened by an idle limit alone (an audit entry is never idle)', () => {
    expect(limitsOf({ MEMORY_RETENTION_MAX_IDLE: '1d' }).maxAgeMs).toBe(limitsOf({}).maxAgeMs);
  });
});
