import { NatsMemory } from '@agent-memory/memory/nats';
import {
  describeLegacySummarizationConformance,
  natsInitializer,
} from '@agent-memory/test-conformance';

describeLegacySummarizationConformance('nats', {
  backends: natsInitializer(),
  storeClass: NatsMemory,
  secondWriter: true,
});
