import { pino, type DestinationStream } from 'pino';

// Where the daemon's log lines wait while their reader is slow: journald busy, a terminal scrolled
// back, a pipe nobody reads. pino's asynchronous destination keeps every line it is given until
// it is written, without bound by default, so a reader that stalls under a flood of log lines (a
// debug level and a hostile broker) would grow the daemon by whatever the lines add up to. Past
// this many bytes waiting, further lines are dropped and counted, never kept, and one
// line says how many were lost once the reader takes lines again.

/** About 4,000 lines of the daemon's log: a stall of journald's some seconds under a flood. */
export const LOG_BUFFER_BYTES = 1024 * 1024;

export interface LogDrops {
  /** Lines dropped since the last report of them. */
  lines: number;
  bytes: number;
}

export interface BoundedDestination {
  stream: DestinationStream;
  /** Lines dropped and not yet reported. */
  drops(): Readonly<LogDrops>;
  /** Calls `report` with the drops once writes go through again (then counts from zero). */
  onDropsEnded(report: (drops: LogDrops) => void): void;
}

export function boundedDestination(options: { fd: number; maxBytes?: number }): BoundedDestination {
  const stream = pino.destination({ fd: options.fd, sync: false, maxLength: options.maxBytes ?? LOG_BUFFER_BYTES });
  let drops: LogDrops = { lines: 0, bytes: 0 };
  let report: ((drops: LogDrops) => void) | undefined;
  stream.on('drop', (data: string | Buffer) => {
    drops.lines += 1;
    drops.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  });
  // 'write' is emitted after each write that went through: the reader takes lines again.
  stream.on('write', () => {
    if (drops.lines === 0 || report === undefined) return;
    const ended = drops;
    drops = { lines: 0, bytes: 0 };
    report(ended);
  });
  return {
    stream,
    drops: () => drops,
    onDropsEnded(listener) {
      report = listener;
    },
  };
}
