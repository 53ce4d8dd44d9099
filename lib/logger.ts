// Structured logs (pino). One root logger; components take a child. Never log a secret.
// JSON lines for log shippers; on a terminal, one readable line per record instead.
import tty from 'node:tty';
import { pino, type Logger } from 'pino';

export type { Logger };

/** `fd` 2 sends logs to stderr (the CLI keeps stdout for its own output). */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', fd: 1 | 2 = 1): Logger {
  const options = { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  if (!tty.isatty(fd)) return pino(options, pino.destination({ fd, sync: fd === 2 }));
  const out = pino.destination({ fd, sync: true });
  return pino(options, { write: (line: string) => void out.write(readableLine(line)) });
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** A pino JSON line as a person reads it: `09:30:01.123 INFO  api: listening url=http://…`; an error's stack below. */
export function readableLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { time, level, msg, component, err, ...fields } = record;
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const label = (LEVELS[level as number] ?? String(level)).padEnd(5);
  const pairs = Object.entries(fields).map(([key, value]) => `${key}=${readableValue(value)}`);
  const error = err as { message?: string; stack?: string } | undefined;
  if (error?.message) pairs.push(`err=${readableValue(error.message)}`);
  const head = [clock, label, component ? `${String(component)}:` : '', String(msg ?? ''), ...pairs].filter(Boolean).join(' ');
  const stack = error?.stack
    ? `\n    ${error.stack
        .split('\n')
        .slice(1)
        .map((s) => s.trim())
        .join('\n    ')}`
    : '';
  return `${head}${stack}\n`;
}

function readableValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/** A command's logger: each record one sentence on stderr for a person, `pdi: warning: … (source ted)`. */
export function createSentenceLogger(prefix: string, level = 'warn'): Logger {
  return pino({ level, base: undefined }, { write: (line: string) => void process.stderr.write(sentenceLine(prefix, line)) });
}

export function sentenceLine(prefix: string, json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return `${prefix}: ${json}`;
  }
  const { level, msg, time: _time, component: _component, err, ...fields } = record;
  const kind = Number(level) >= 50 ? 'error' : Number(level) >= 40 ? 'warning' : 'note';
  const details = Object.entries(fields).map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const error = (err as { message?: string } | undefined)?.message;
  if (error) details.push(error);
  return `${prefix}: ${kind}: ${String(msg ?? '')}${details.length > 0 ? ` (${details.join('; ')})` : ''}\n`;
}
