import { describeMemoryBackendConformance } from '@agent-memory/conformance';
import { simpleInitializer } from '@agent-memory/test-conformance';

describeMemoryBackendConformance(simpleInitializer());
