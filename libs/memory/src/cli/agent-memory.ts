#!/usr/bin/env node
/**
 * The package's command (`npx agent-memory`), for apps that use the PostgreSQL store without the
 * TypeORM CLI:
 *
 *   agent-memory migrate [--url <postgres://…>] [--table <name|schema.name>]
 *   agent-memory status  [--url <postgres://…>] [--table <name|schema.name>]
 *   agent-memory export  [store flags] [--resource <name>]  > sessions.jsonl
 *   agent-memory import  [store flags]                      < sessions.jsonl
 *   agent-memory mcp     [store flags]                      (MCP server over stdio)
 *
 * `--url` defaults to DATABASE_URL, `--table` to MEMORY_PG_TABLE, else `conversation_memory`.
 * `migrate` applies the pending memory migrations (idempotent; several at once wait on an advisory
 * lock) and exits 0. `status` says whether migrations are pending and what is missing, and
 * exits 0 when the store can serve, 3 when migrations are pending. `export` writes every session
 * as JSON Lines on stdout, `import` reads them from stdin and prints `{"imported","skipped"}`
 * (see docs/operations.md, "Move between stores"); `mcp` serves the store to MCP clients over
 * stdio until stdin closes (docs/mcp.md); the store is chosen by `--backend`, `--dir`,
 * `--url`, `--table`, `--nats-url`, `--bucket`, each defaulting to the server's variable and
 * then to the server's default. Bad usage exits 2, a failure 1 (one line on stderr).
 *
 * A store's driver is loaded only when that store is used: `--help`, and the JSON-file store,
 * need none of the optional packages (`typeorm`, `pg`, `nats`); a missing one is named.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_MEMORY_BACKEND } from '../core/defaults';
import { DEFAULT_MEMORY_TABLE } from '../postgres/postgres.defaults';
import { BUILT_IN_DRIVERS } from '../drivers/built-in-drivers';
import { postgresDriver } from '../postgres/postgres.driver';
import { UsageError } from './cli-usage.error';
import {
  chooseTransferBackend,
  loadPostgresModule,
  readStoreSettings,
  storeFlags,
  type TransferBackendChoice,
} from './transfer-backend';
import { runExport, runImport } from './transfer-commands';
import { runMcp } from './mcp-command';

/** The stores the commands can reach (those that outlive a process). */
const DURABLE = BUILT_IN_DRIVERS.filter((driver) => driver.durable);

/** One usage line per store flag: `  --dir       the sessions folder (jsonfile; default: …)`. */
const STORE_FLAG_LINES = DURABLE.flatMap((driver) =>
  driver.settings.flatMap((setting) =>
    setting.flag === undefined
      ? []
      : [
          `  --${setting.flag.padEnd(10)}${setting.summary} (${driver.kind}; default: ${setting.env}` +
            `${setting.default === undefined ? '' : `, else ${setting.default}`})`,
        ],
  ),
).join('\n');

const USAGE = `usage: agent-memory <migrate|status> [--url <postgres://…>] [--table <name|schema.name>]
       agent-memory export [store] [--resource <name>] [--skip-unreadable]   (JSON Lines on stdout)
       agent-memory import [store]                                           (JSON Lines from stdin)
       agent-memory mcp [store]                                              (MCP server over stdio)
  --url       the PostgreSQL database (default: DATABASE_URL)
  --table     the messages table, name or schema.name (default: MEMORY_PG_TABLE, else ${DEFAULT_MEMORY_TABLE})
 store (export, import, mcp), chosen as the server chooses it:
  --backend   ${DURABLE.map((d) => d.kind).join(', ')} (default: MEMORY_BACKEND, else ${DEFAULT_MEMORY_BACKEND})
${STORE_FLAG_LINES}
 export:
  --resource         only the sessions whose resource meta is this
  --skip-unreadable  leave out sessions that cannot be read (each is still named on stderr)
 ${DURABLE.map((d) => `${d.kind}: ${d.summary}`).join('; ')}.`;

type Invocation =
  | { command: 'migrate' | 'status'; url: string; table: string | undefined }
  | {
      command: 'export';
      store: TransferBackendChoice;
      resource: string | undefined;
      skipUnreadable: boolean;
    }
  | { command: 'import'; store: TransferBackendChoice }
  | { command: 'mcp'; store: TransferBackendChoice };

const COMMANDS = ['migrate', 'status', 'export', 'import', 'mcp'] as const;
const isCommand = (name: string | undefined): name is Invocation['command'] =>
  (COMMANDS as readonly (string | undefined)[]).includes(name);

function parse(argv: string[]): Invocation | 'help' {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...Object.fromEntries(storeFlags().map((flag) => [flag, { type: 'string' as const }])),
      url: { type: 'string' },
      table: { type: 'string' },
      backend: { type: 'string' },
      resource: { type: 'string' },
      'skip-unreadable': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const [command, ...rest] = positionals;
  if (!isCommand(command)) {
    throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (command === 'export' || command === 'import' || command === 'mcp') {
    const store = chooseTransferBackend(values, process.env);
    if (command === 'import' || command === 'mcp') {
      if (values.resource !== undefined) throw new UsageError('--resource is for export only');
      if (values['skip-unreadable']) throw new UsageError('--skip-unreadable is for export only');
      return { command, store };
    }
    return {
      command,
      store,
      resource: values.resource,
      skipUnreadable: values['skip-unreadable'] ?? false,
    };
  }
  const { url, table } = readStoreSettings(postgresDriver, values, process.env);
  return { command, url, table: table ?? undefined };
}

async function run(invocation: Invocation): Promise<number> {
  if (invocation.command === 'export') {
    await runExport(invocation.store, {
      ...(invocation.resource === undefined ? {} : { resource: invocation.resource }),
      skipUnreadable: invocation.skipUnreadable,
    });
    return 0;
  }
  if (invocation.command === 'mcp') {
    await runMcp(invocation.store);
    return 0;
  }
  if (invocation.command === 'import') {
    console.log(JSON.stringify(await runImport(invocation.store)));
    return 0;
  }
  const { runSchemaCommand } = await loadPostgresModule(() => import('./schema-commands'));
  return runSchemaCommand(invocation.command, invocation.url, invocation.table);
}

async function main(): Promise<void> {
  let invocation: Invocation | 'help';
  try {
    invocation = parse(process.argv.slice(2));
  } catch (error) {
    console.error(`agent-memory: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    process.exit(2);
  }
  if (invocation === 'help') {
    console.log(USAGE);
    return;
  }
  try {
    process.exitCode = await run(invocation);
  } catch (error) {
    console.error(
      `agent-memory ${invocation.command} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
}

void main();
