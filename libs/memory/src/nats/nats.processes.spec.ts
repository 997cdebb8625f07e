import { describeProcessConformance, natsHarness } from '@agent-memory/conformance';

describeProcessConformance('NatsMemory', natsHarness());
