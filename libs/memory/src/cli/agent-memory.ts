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
 * `--url`, `--table`, `--nats-url`, `--bucket`, each defaulting to the server's variable. Bad
 * usage exits 2, a failure 1.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DEFAULT_MEMORY_TABLE } from '../postgres/memory-table-names';
import { memorySchemaStatus } from '../postgres/memory-schema';
import { MemoryMigrationDataSource } from '../postgres/migrations/memory-migration.data-source';
import { UsageError } from './cli-usage.error';
import { chooseTransferBackend, type TransferBackendChoice } from './transfer-backend';
import { runExport, runImport } from './transfer-commands';
import { runMcp } from './mcp-command';

const USAGE = `usage: agent-memory <migrate|status> [--url <postgres://…>] [--table <name|schema.name>]
       agent-memory export [store] [--resource <name>]   (JSON Lines on stdout)
       agent-memory import [store]                       (JSON Lines from stdin)
       agent-memory mcp [store]                          (MCP server over stdio)
  --url       the PostgreSQL database (default: DATABASE_URL)
  --table     the messages table, name or schema.name (default: MEMORY_PG_TABLE, else ${DEFAULT_MEMORY_TABLE})
 store (export, import, mcp):
  --backend   jsonfile, postgres or nats (default: MEMORY_BACKEND, else postgres when a URL is set)
  --dir       the jsonfile folder (default: MEMORY_DIR)
  --nats-url  the NATS server (default: NATS_URL)
  --bucket    the NATS KV bucket (default: MEMORY_NATS_BUCKET, else agent_memory)
  --resource  export only the sessions whose resource meta is this`;

type Invocation =
  | { command: 'migrate' | 'status'; url: string; table: string | undefined }
  | { command: 'export'; store: TransferBackendChoice; resource: string | undefined }
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
      url: { type: 'string' },
      table: { type: 'string' },
      backend: { type: 'string' },
      dir: { type: 'string' },
      'nats-url': { type: 'string' },
      bucket: { type: 'string' },
      resource: { type: 'string' },
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
      return { command, store };
    }
    return { command, store, resource: values.resource };
  }
  const url = values.url ?? process.env.DATABASE_URL;
  if (!url) {
    throw new UsageError('no database: pass --url postgres://… or set DATABASE_URL');
  }
  return { command, url, table: values.table ?? (process.env.MEMORY_PG_TABLE || undefined) };
}

async function run(invocation: Invocation): Promise<number> {
  if (invocation.command === 'export') {
    await runExport(invocation.store, invocation.resource);
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
  const { command, url, table } = invocation;
  const dataSource = await new MemoryMigrationDataSource(
    { url, connectTimeoutMS: 10_000 },
    table,
  ).initialize();
  const name = table ?? DEFAULT_MEMORY_TABLE;
  try {
    if (command === 'migrate') {
      const applied = await dataSource.runMigrations({ transaction: 'all' });
      console.log(
        applied.length === 0
          ? `memory migrations of "${name}": already up to date`
          : `memory migrations of "${name}": applied ${applied.map((m) => m.name).join(', ')}`,
      );
      return 0;
    }
    const pending = await dataSource.showMigrations();
    const schema = await memorySchemaStatus(dataSource, table);
    console.log(`memory tables of "${name}": ${schema.ready ? 'ready' : 'not ready'}`);
    if (!schema.ready) console.log(`missing: ${schema.missing.join(', ')}`);
    console.log(`migrations: ${pending ? 'pending (run "agent-memory migrate")' : 'up to date'}`);
    return schema.ready && !pending ? 0 : 3;
  } finally {
    await dataSource.destroy();
  }
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
