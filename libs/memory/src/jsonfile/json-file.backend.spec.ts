import { describeMemoryBackendConformance } from '@agent-memory/conformance';
import { jsonFileInitializer } from '@agent-memory/test-conformance';

describeMemoryBackendConformance(jsonFileInitializer());
