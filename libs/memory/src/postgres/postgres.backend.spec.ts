import { describeMemoryBackendConformance } from '@agent-memory/conformance';
import { postgresInitializer } from '@agent-memory/test-conformance';

describeMemoryBackendConformance(postgresInitializer());
