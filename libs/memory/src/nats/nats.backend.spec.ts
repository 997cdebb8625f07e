import { describeMemoryBackendConformance } from '@agent-memory/conformance';
import { natsInitializer } from '@agent-memory/test-conformance';

describeMemoryBackendConformance(natsInitializer());
