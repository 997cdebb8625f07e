import { NatsMemory } from '@agent-memory/memory/nats';
import { describeLegacySummarizationConformance, natsHarness } from '@agent-memory/conformance';

describeLegacySummarizationConformance('nats', {
  backends: natsHarness(),
  storeClass: NatsMemory,
  secondWriter: true,
});
