import { loadOptionalModule } from '../core/optional-peer';
import { openTransferBackend, type TransferBackendChoice } from './transfer-backend';

/** The optional packages `agent-memory mcp` loads. */
const MCP_PEERS = ['@modelcontextprotocol/sdk', 'zod'];

/** Largest JSON-RPC message read from stdin (bytes): the admin server's body bound, 4 MiB. */
const MAX_STDIN_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * `agent-memory mcp`: the memory's MCP server (`createMemoryMcpServer`) over stdio on the chosen
 * store, until stdin ends or the process gets SIGINT/SIGTERM; then the store is closed. stdout
 * carries nothing but the protocol: `console.log` and `console.info` go to stderr while it runs.
 * The SDK is loaded only by this command.
 */
export async function runMcp(choice: TransferBackendChoice): Promise<void> {
  // A driver or a dependency that logs must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  // The SDK first: a missing one is named before any store is opened.
  const [{ createMemoryMcpServer }, { StdioServerTransport }] = await loadOptionalModule(
    'agent-memory mcp',
    MCP_PEERS,
    () => Promise.all([import('../mcp'), import('@modelcontextprotocol/sdk/server/stdio.js')]),
  );
  const backend = await openTransferBackend(choice);
  const server = createMemoryMcpServer(backend, {
    onError: (error, call) =>
      console.error(
        `agent-memory mcp: ${call.tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      ),
  });
  const transport = new StdioServerTransport(process.stdin, process.stdout, {
    maxBufferSize: MAX_STDIN_MESSAGE_BYTES,
  });
  const ended = new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('stdin closed'));
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    server.server.onclose = () => resolve('transport closed');
  });
  await server.connect(transport);
  console.error(`agent-memory mcp: serving the ${backend.kind} store over stdio`);
  const reason = await ended;
  console.error(`agent-memory mcp: ${reason}, closing the store`);
  try {
    await server.close();
  } finally {
    await backend.close();
  }
}
