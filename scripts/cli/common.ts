// Helpers shared by the CLI commands: argument parsing with --help, and failing with a message.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../../lib/config.js';

export class UsageError extends Error {}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[]): Promise<void>;
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(
  cmd: Pick<Command, 'usage'>, argv: string[], options: T, allowPositionals = false,
) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${cmd.usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${cmd.usage}`);
  }
}

export function config(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}
