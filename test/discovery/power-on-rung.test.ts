import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PowerAnswer } from '../../src/discovery/adapter-power.js';
import { POWER_ON_RETRY_FIRST_MS, POWER_ON_RETRY_MAX_MS, powerOnRung } from '../../src/discovery/power-on-rung.js';
import { captureLog } from '../support/log-capture.js';

// The power-on rule alone, on a fake clock: "not yet" answers are asked again with a bounded
// backoff for as long as the rung runs; an answer a person must act on ends it, said once; an
// adapter that is up, or closed, is asked nothing more.

const ADAPTER = { name: 'hci0', index: 0 };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function rungAnswering(answer: () => PowerAnswer) {
  const asks: number[] = [];
  const log = captureLog();
  const rung = powerOnRung({
    adapter: ADAPTER,
    powerOn: async () => {
      asks.push(Date.now());
      return answer();
    },
    logger: log.logger,
  });
  return { rung, asks, log };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('the power-on rung', () => {
  it('asks again on "invalid index", backing off to a bound, for as long as it runs', async () => {
    const { rung, asks, log } = rungAnswering(() => ({ ok: false, reason: 'invalid index', retry: true }));
    rung.ask();
    await vi.advanceTimersByTimeAsync(30_000);
    const between = gaps(asks);
    expect(between[0]).toBe(POWER_ON_RETRY_FIRST_MS);
    expect(Math.max(...between)).toBe(POWER_ON_RETRY_MAX_MS);
    expect(between.every((gap, i) => i === 0 || gap >= between[i - 1]!)).toBe(true);
    expect(asks.length).toBeGreaterThan(10);
    expect(log.lines.filter((line) => /not ready/.test(String(line.msg)) && line.level === 30)).toHaveLength(1);
    rung.stop();
    const asked = asks.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(asks.length).toBe(asked);
  });

  it('stops asking once the adapter is up', async () => {
    const { rung, asks } = rungAnswering(() => ({ ok: false, reason: 'busy', retry: true }));
    rung.ask();
    await vi.advanceTimersByTimeAsync(3_000);
    rung.up();
    const asked = asks.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(asks.length).toBe(asked);
  });

  it('success ends it; rfkill ends it, said once; a new ask (after an unblock) starts again from the first wait', async () => {
    let answer: PowerAnswer = { ok: true };
    const { rung, asks, log } = rungAnswering(() => answer);
    rung.ask();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(asks).toHaveLength(1);

    answer = { ok: false, reason: 'blocked by rfkill', retry: false };
    rung.ask();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(asks).toHaveLength(2);
    expect(log.lines.filter((line) => /refused to power/.test(String(line.msg)))).toHaveLength(1);

    answer = { ok: false, reason: 'invalid index', retry: true };
    const from = Date.now();
    rung.ask();
    await vi.advanceTimersByTimeAsync(POWER_ON_RETRY_FIRST_MS);
    expect(asks.slice(2)).toEqual([from, from + POWER_ON_RETRY_FIRST_MS]);
    rung.stop();
  });

  it('an answer that comes after the adapter was closed is not acted on', async () => {
    let release: (answer: PowerAnswer) => void = () => undefined;
    const asks: number[] = [];
    const rung = powerOnRung({
      adapter: ADAPTER,
      powerOn: () => {
        asks.push(Date.now());
        return new Promise((resolve) => (release = resolve));
      },
      logger: captureLog().logger,
    });
    rung.ask();
    rung.stop();
    release({ ok: false, reason: 'invalid index', retry: true });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(asks).toHaveLength(1);
  });

  it('without a way to power on, asks nothing', async () => {
    const log = captureLog();
    const rung = powerOnRung({ adapter: ADAPTER, powerOn: undefined, logger: log.logger });
    // Asked at open and after an unblock, as the ladder does: nothing to ask with, so no ask is
    // planned for later and nothing is said.
    rung.ask();
    rung.ask();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(log.lines).toEqual([]);
    rung.stop();
  });
});
