import { createRequire } from 'node:module';
import { pino, type Logger, type DestinationStream } from 'pino';
import { boundedDestination } from './bounded-destination.js';

export type { Logger };

// Secrets are removed by the logger's own configuration, not by care at each call: any field
// with one of these names, at the top or one level down, is censored wherever it is logged.
const SECRET_FIELDS = ['token', 'apiToken', 'authorization', 'Authorization', 'password', 'secret'];
export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  'headers.authorization',
  '*.headers.authorization',
  'options.headers.authorization',
];

export interface LoggerOptions {
  level: string;
  /** Human-readable lines instead of JSON (a terminal) where pino-pretty is installed; journald
   * gets JSON. */
  pretty?: boolean;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    base: { pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (options.pretty && !options.destination && prettyInstalled()) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } });
  }
  if (options.destination !== undefined) return pino(base, options.destination);
  const destination = boundedDestination({ fd: 1 });
  const logger = pino(base, destination.stream);
  destination.onDropsEnded((drops) => logger.warn({ droppedLines: drops.lines, droppedBytes: drops.bytes }, `${drops.lines} log lines dropped: the log's reader was too slow`));
  return logger;
}

/** pino-pretty is a development dependency: a hub installed with `npm ci --omit=dev` logs JSON
 * in a terminal too, which is what the daemon logs anyway (pipe it through pino-pretty to read). */
export function prettyInstalled(resolve: (name: string) => string = createRequire(import.meta.url).resolve): boolean {
  try {
    resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

/** A logger that drops everything, for tests and for commands that print their own output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
