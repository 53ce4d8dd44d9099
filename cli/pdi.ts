// The `pdi` operator command. Exit codes: 0 ok, 1 failure, 2 bad arguments or configuration.
import { operatorMessage } from '../lib/errors.js';
import { printable } from '../lib/terminal.js';
import { backupCommand } from './backup.js';
import { UsageError, type Command } from './common.js';
import { demoCommand, ingestCommand } from './ingest.js';
import { keysCommand } from './keys.js';
import { mcpCommand } from './mcp.js';
import { reindexCommand } from './reindex.js';
import { reportCommand } from './report.js';
import { serveCommand } from './serve.js';
import { statusCommand } from './status.js';

const COMMANDS: Command[] = [serveCommand, keysCommand, ingestCommand, reindexCommand, demoCommand, statusCommand, reportCommand, mcpCommand, backupCommand];

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
  await cmd.run(rest);
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
