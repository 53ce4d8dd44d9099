// Structured logs (pino). One root logger; components take a child. Never log a secret.
import { pino, type Logger } from 'pino';

export type { Logger };

/** `fd` 2 sends logs to stderr (the CLI keeps stdout for its own output). */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', fd: 1 | 2 = 1): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ fd, sync: fd === 2 }));
}
