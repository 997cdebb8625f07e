import { join } from 'node:path';
import { JSON_FILE_AUDIT_FOLDER, JsonFileAuditLog } from '@agent-memory/memory';
import { describeAuditLogConformance, jsonFileHarness } from '@agent-memory/conformance';

describeAuditLogConformance(
  'jsonfile',
  jsonFileHarness(),
  async ({ spec }, limits) => {
    if (spec?.kind !== 'jsonfile') throw new Error('the JSON-file harness names a folder');
    return new JsonFileAuditLog({ dir: join(spec.dir, JSON_FILE_AUDIT_FOLDER), limits });
  },
  { shared: true },
);
