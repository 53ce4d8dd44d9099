// The `pdi` operator command. Exit codes: 0 ok, 1 failure, 2 bad arguments or configuration.
import { operatorMessage } from '../lib/errors.js';
import { printable } from '../lib/terminal.js';
import { UsageError, type Command } from './common.js';

/**
 * The commands. Each module is loaded only when its command runs: `pdi --help` or `pdi keys` then loads
 * neither the engines, restify nor the embedder (a start took 0.5 s of CPU when all were loaded).
 */
const COMMANDS: { name: string; summary: string; load(): Promise<Command> }[] = [
  { name: 'serve', summary: 'serve the API (same as npm start)', load: async () => (await import('./serve.js')).serveCommand },
  { name: 'keys', summary: 'create, list and revoke API keys', load: async () => (await import('./keys.js')).keysCommand },
  { name: 'ingest', summary: 'fetch (or replay) a source through the pipeline into the index', load: async () => (await import('./ingest.js')).ingestCommand },
  { name: 'reindex', summary: 'rebuild the index from stored records and swap atomically', load: async () => (await import('./reindex.js')).reindexCommand },
  { name: 'demo', summary: 'load the demo corpus through the pipeline', load: async () => (await import('./ingest.js')).demoCommand },
  { name: 'status', summary: 'engine, embedder and per-source index and ingest state', load: async () => (await import('./status.js')).statusCommand },
  { name: 'report', summary: 'generate a due-diligence report (PDF) for an entity', load: async () => (await import('./report.js')).reportCommand },
  { name: 'mcp', summary: 'serve the MCP tools over stdio for an Enterprise key', load: async () => (await import('./mcp.js')).mcpCommand },
  {
    name: 'backup',
    summary: 'copy the state (accounts, documents, ingest) while the server runs',
    load: async () => (await import('./backup.js')).backupCommand,
  },
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Usage: pdi <command> [options]\n\nCommands:\n${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}\n\nRun pdi <command> --help for a command's options.`;
}

// `pdi keys list | head`: the reader left, so the rest of the output has nowhere to go. Not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

async function run(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name) throw new UsageError(help());
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help()}\n`);
    return;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) throw new UsageError(`Unknown command: ${name}\n\n${help()}`);
  await (await cmd.load()).run(rest);
}

run(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  // Errors may quote an upstream's text (a body that does not parse): printed as data.
  process.stderr.write(`pdi: ${printable(operatorMessage(err))}\n`);
  process.exit(1);
});
