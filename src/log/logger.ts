import { pino, type Logger, type DestinationStream } from 'pino';

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
  /** Human-readable lines instead of JSON (a terminal); journald gets JSON. */
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
  if (options.pretty && !options.destination) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } });
  }
  return pino(base, options.destination ?? pino.destination({ fd: 1, sync: false }));
}

/** A logger that drops everything, for tests and for commands that print their own output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
