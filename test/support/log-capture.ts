import { createLogger, type Logger } from '../../src/log/logger.js';

export interface CapturedLog {
  logger: Logger;
  /** Every line logged so far, parsed. */
  lines: Array<Record<string, unknown> & { msg?: string; level: number }>;
  /** The raw text, to check nothing secret was written. */
  text(): string;
}

/** A real pino logger (redaction included) writing into memory. */
export function captureLog(level = 'debug'): CapturedLog {
  const raw: string[] = [];
  const lines: CapturedLog['lines'] = [];
  const logger = createLogger({
    level,
    destination: {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as CapturedLog['lines'][number]);
      },
    },
  });
  return { logger, lines, text: () => raw.join('') };
}
