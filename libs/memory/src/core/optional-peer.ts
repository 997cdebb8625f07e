/**
 * A package a command needs is not installed: `typeorm` and `pg` for the PostgreSQL store, `nats`
 * for NATS, `@modelcontextprotocol/sdk` for `mcp` (the package's optional peers). The command
 * prints this one line and exits 1.
 */
export class MissingPeerError extends Error {
  constructor(
    /** What needs it: `the postgres store`, `agent-memory mcp`. */
    readonly needer: string,
    /** The package that was not found. */
    readonly packageName: string,
    /** Every package the store needs, for the install command. */
    peers: readonly string[],
  ) {
    super(
      `${needer} needs the package "${packageName}", which is not installed: ` +
        `run "npm install ${peers.join(' ')}" where agent-memory is installed`,
    );
  }
}

/**
 * Loads a module only when it is used, turning a missing optional peer into a
 * {@link MissingPeerError} naming it (other errors are rethrown as they are).
 * @param needer what needs the module, for the message: `the postgres store`, `agent-memory mcp`.
 * @param peers the packages the module needs that may be missing.
 */
export async function loadOptionalModule<T>(
  needer: string,
  peers: readonly string[],
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackage(error);
    if (missing !== null && peers.includes(missing)) {
      throw new MissingPeerError(needer, missing, peers);
    }
    throw error;
  }
}

/** The package name a "Cannot find module" error is about (`@scope/name` or `name`), or null. */
function missingPackage(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return null;
  const match = /Cannot find (?:module|package) '([^']+)'/.exec((error as Error).message);
  if (!match) return null;
  const [first, second] = match[1]!.split('/');
  return first!.startsWith('@') ? `${first}/${second}` : first!;
}
