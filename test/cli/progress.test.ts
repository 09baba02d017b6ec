import { describe, expect, it } from 'vitest';
import { createStepReporter, type Ticker } from '../../src/cli/progress.js';

function recorder(): { write(text: string): void; text: () => string } {
  const chunks: string[] = [];
  return { write: (text) => void chunks.push(text), text: () => chunks.join('') };
}

/** A ticker the test turns by hand: no timers, no sleeps. */
function manualTicker(): Ticker & { tick(): void; running: () => boolean } {
  let callback: (() => void) | undefined;
  return {
    setInterval(cb) {
      callback = cb;
      return 1;
    },
    clearInterval() {
      callback = undefined;
    },
    tick: () => callback?.(),
    running: () => callback !== undefined,
  };
}

describe('step reporter', () => {
  it('without a terminal: one plain line a step, no control characters', () => {
    const out = recorder();
    const reporter = createStepReporter(out, { live: false });
    reporter.step('Waiting for button A1 — press it now');
    reporter.step('Linking A1');
    reporter.note('a note');
    reporter.succeed('Linked A1 (link 17)');
    expect(out.text()).toBe('Waiting for button A1 — press it now\nLinking A1\na note\n✔ Linked A1 (link 17)\n');
  });

  it('on a terminal: the current step turns in place, finished steps stay, the spinner stops at the end', () => {
    const out = recorder();
    const ticker = manualTicker();
    const reporter = createStepReporter(out, { live: true, ticker });
    reporter.step('Waiting');
    ticker.tick();
    reporter.step('Linking');
    reporter.succeed('Linked');
    expect(ticker.running()).toBe(false);
    expect(out.text()).toBe(
      '\r\x1b[2K⠋ Waiting' + '\r\x1b[2K⠙ Waiting' + '\r\x1b[2K• Waiting\n' + '\r\x1b[2K⠋ Linking' + '\r\x1b[2K✔ Linked\n',
    );
  });

  it('on a terminal: a note goes above the live step, which is drawn again', () => {
    const out = recorder();
    const reporter = createStepReporter(out, { live: true, ticker: manualTicker() });
    reporter.step('Window open');
    reporter.note('✔ Linked A1');
    reporter.fail('Window open');
    expect(out.text()).toBe('\r\x1b[2K⠋ Window open' + '\r\x1b[2K✔ Linked A1\n' + '\r\x1b[2K⠋ Window open' + '\r\x1b[2K✘ Window open\n');
  });

  it('stop() clears the live line and leaves nothing turning', () => {
    const out = recorder();
    const ticker = manualTicker();
    const reporter = createStepReporter(out, { live: true, ticker });
    reporter.step('Listening');
    reporter.stop();
    expect(ticker.running()).toBe(false);
    expect(out.text().endsWith('\r\x1b[2K')).toBe(true);
  });
});
