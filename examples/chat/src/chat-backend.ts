import {
  BUILT_IN_DRIVERS,
  requireDriver,
  SettingsReader,
  type MemoryBackend,
} from '@agent-memory/memory';

/** The example's own defaults, where they differ from the admin server's. */
const CHAT_DEFAULTS: Record<string, string> = {
  MEMORY_SIMPLE_CAPACITY: '1000',
  MEMORY_DIR: './data/chat',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
  MEMORY_NATS_BUCKET: 'agent-memory-chat',
};

/**
 * The chosen store, built by its driver from the same environment variables as the admin
 * server. A store's optional packages are loaded only when it is chosen, so `--backend jsonfile`
 * never loads `pg` or `nats`.
 * @throws TypeError naming a bad variable.
 */
export async function createChatBackend(
  kind: string,
  env: NodeJS.ProcessEnv,
): Promise<MemoryBackend> {
  const driver = requireDriver(BUILT_IN_DRIVERS, kind);
  const reader = new SettingsReader({ ...CHAT_DEFAULTS, ...env });
  const settings = driver.readSettings(reader);
  if (reader.problems.length > 0) throw new TypeError(reader.problems.join('; '));
  return driver.create(settings);
}
