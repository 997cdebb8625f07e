import { describeProcessConformance, postgresHarness } from '@agent-memory/conformance';

describeProcessConformance('PostgresMemory', postgresHarness(), { adjacentTurnCursors: true });
