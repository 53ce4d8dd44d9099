// Helpers shared by the CLI commands: argument parsing with --help, failing with a message, source
// arguments and the ingest runtime.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveSource, SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import type { Runtime } from '../ingest/runtime.js';
import { ConfigError, loadConfig, type Config } from '../lib/config.js';
import { createLogger, createSentenceLogger, type Logger } from '../lib/logger.js';
import type { CreateOptions } from '../lib/search/index.js';

export class UsageError extends Error {}

/** A command group; its name and one-line summary are in cli/pdi.ts, which loads it only to run it. */
export interface Command {
  usage: string;
  run(argv: string[]): Promise<void>;
}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(cmd: Pick<Command, 'usage'>, argv: string[], options: T, allowPositionals = false) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${cmd.usage}\n`);
    process.exit(0);
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals, strict: true, tokens: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${cmd.usage}`);
  }
  // parseArgs keeps the last of a repeated option; `--org A --org B` is more likely a mistake.
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || options[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given more than once\n\n${cmd.usage}`);
    seen.add(token.name);
  }
  return parsed;
}

export function config(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * A signal that Ctrl-C (SIGINT) or SIGTERM aborts, for commands that stop cleanly: the run under way
 * ends at once as failed, saying so, its source is released and the exit code is 128 + the signal's
 * number. A second signal quits at once (what was checkpointed stays).
 */
export function stopOnSignals(): AbortSignal {
  const stop = new AbortController();
  const codes = { SIGINT: 130, SIGTERM: 143 } as const;
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    process.on(name, () => {
      if (stop.signal.aborted) process.exit(codes[name]);
      process.stderr.write(`\npdi: ${name}: stopping the run under way (again to quit at once)\n`);
      process.exitCode = codes[name];
      stop.abort(`interrupted (${name})`);
    });
  }
  return stop.signal;
}

export const SOURCES = SOURCE_NAMES.join(', ');

/** Warnings and errors as sentences on stderr; the log lines themselves when LOG_LEVEL asks for them. */
export function cliLogger(): Logger {
  const level = process.env.LOG_LEVEL?.trim();
  return level ? createLogger(level, 2) : createSentenceLogger('pdi');
}

export async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>, opts: CreateOptions = {}): Promise<T> {
  const cfg = config();
  // Loaded here, not at the top: it brings the engines and the embedder, which `pdi keys` does not need.
  const { openRuntime } = await import('../ingest/runtime.js');
  const rt = await openRuntime(cfg, cliLogger(), opts);
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

export function sourceArg(name: string | undefined, usage: string): SourceName {
  const source = name ? resolveSource(name) : null;
  if (!source) throw new UsageError(`${name ? `Unknown source: ${name}` : 'A source is required'} (one of ${SOURCES})\n\n${usage}`);
  return source;
}
