import { EXIT } from './exit-codes.js';

// Steps shown as they happen. On a terminal the current step turns a small spinner and is
// rewritten in place; finished steps stay as lines above it. Anywhere else (a pipe, a log, an
// installer's script) each step is one plain line, with no control characters.

export interface StepOutput {
  write(text: string): unknown;
}

export interface Ticker {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface StepReporter {
  /** A new step is under way; the previous one is done. */
  step(text: string): void;
  /** A line printed above the live step, which keeps turning (window outcomes). */
  note(text: string): void;
  /** The last line: it went well. */
  succeed(text: string): void;
  /** The last line: it did not. */
  fail(text: string): void;
  /** Clears the live step without a last line (Ctrl-C, an error printed elsewhere). */
  stop(): void;
}

export interface StepReporterOptions {
  /** true on a terminal: spinner and rewriting; false: plain lines. */
  live: boolean;
  intervalMs?: number;
  ticker?: Ticker;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\x1b[2K';

const realTicker: Ticker = {
  setInterval(callback, ms) {
    // unref: a spinner alone must never keep the CLI from exiting.
    return setInterval(callback, ms).unref();
  },
  clearInterval(handle) {
    clearInterval(handle as NodeJS.Timeout);
  },
};

function plainReporter(out: StepOutput): StepReporter {
  return {
    step: (text) => out.write(`${text}\n`),
    note: (text) => out.write(`${text}\n`),
    succeed: (text) => out.write(`✔ ${text}\n`),
    fail: (text) => out.write(`✘ ${text}\n`),
    stop: () => {},
  };
}

function liveReporter(out: StepOutput, intervalMs: number, ticker: Ticker): StepReporter {
  let current: string | undefined;
  let frame = 0;
  let handle: unknown;

  const draw = (): void => {
    if (current !== undefined) out.write(`${CLEAR_LINE}${FRAMES[frame % FRAMES.length]} ${current}`);
  };
  const halt = (): void => {
    if (handle !== undefined) ticker.clearInterval(handle);
    handle = undefined;
  };
  const finish = (line: string | undefined): void => {
    halt();
    if (line !== undefined) out.write(`${CLEAR_LINE}${line}\n`);
    else if (current !== undefined) out.write(CLEAR_LINE);
    current = undefined;
  };

  return {
    step(text) {
      if (current !== undefined) out.write(`${CLEAR_LINE}• ${current}\n`);
      current = text;
      frame = 0;
      draw();
      handle ??= ticker.setInterval(() => {
        frame += 1;
        draw();
      }, intervalMs);
    },
    note(text) {
      out.write(`${CLEAR_LINE}${text}\n`);
      draw();
    },
    succeed: (text) => finish(`✔ ${text}`),
    fail: (text) => finish(`✘ ${text}`),
    stop: () => finish(undefined),
  };
}

export function createStepReporter(out: StepOutput, options: StepReporterOptions): StepReporter {
  if (!options.live) return plainReporter(out);
  return liveReporter(out, options.intervalMs ?? 80, options.ticker ?? realTicker);
}

/**
 * Ctrl-C while the daemon works for us: clear the spinner, say what happens now, exit 130.
 * Closing the connection is what cancels the daemon's side. Returns the function that disarms it.
 */
export function cancelOnInterrupt(reporter: StepReporter, note: string): () => void {
  const onInterrupt = (): void => {
    reporter.fail(note);
    process.exit(EXIT.interrupted);
  };
  process.once('SIGINT', onInterrupt);
  return () => process.off('SIGINT', onInterrupt);
}
