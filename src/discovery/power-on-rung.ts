import type { Logger } from '../log/logger.js';
import type { FoundAdapter } from './adapter-finder.js';
import type { PowerAnswer } from './adapter-power.js';

// The power-on rung of the recovery ladder (adapter-recovery.ts). Without bluetoothd nothing powers
// an adapter on: the kernel powers a new one off two seconds after its setup unless asked, and
// leaves one down after an rfkill unblock. So the ladder asks, once it has opened an adapter the
// kernel lists, and again after each unblock.
//
// An adapter still in its setup answers "invalid index" (or "busy") for as long as the setup takes:
// seconds on a Raspberry Pi whose hciuart loads the controller's firmware, longer on a loaded hub.
// Such answers say "not yet", so the rung keeps asking, with a bounded backoff, for as long as the
// adapter stays open; the ladder stops the rung when the kernel no longer lists it. Only an answer
// that a person must act on (an rfkill block, a permission) ends the asking, said once. Once the
// adapter has scanned, nothing is asked again: an adapter someone powers off afterwards stays off
// (`powered-off` until they power it on).

/** The first wait after a "not yet" answer. */
export const POWER_ON_RETRY_FIRST_MS = 500;
/**
 * The longest wait between two asks. An adapter that appears is to be scanning within 10 s;
 * a ready adapter is asked within this, leaving the rest for noble to see it up and start the scan.
 * Each ask is one command on a control socket: nothing to save by waiting longer.
 */
export const POWER_ON_RETRY_MAX_MS = 2_000;

export interface PowerOnRung {
  /** Asks now, and again on "not yet" answers: at open, and after an rfkill unblock. */
  ask(): void;
  /** The adapter has scanned: nothing more is asked until the next ask(). */
  up(): void;
  /** The adapter was closed. */
  stop(): void;
}

export interface PowerOnRungOptions {
  adapter: FoundAdapter;
  /** The kernel's Set Powered (adapter-power.ts); undefined: never asked. */
  powerOn: ((index: number) => Promise<PowerAnswer>) | undefined;
  logger: Logger;
}

export function powerOnRung({ adapter, powerOn, logger }: PowerOnRungOptions): PowerOnRung {
  let timer: NodeJS.Timeout | undefined;
  let asking = false;
  let delayMs = POWER_ON_RETRY_FIRST_MS;
  let notReadySaid = false;
  /** Bumped by every ask(), up() and stop(): an answer to an older ask is not acted on. */
  let generation = 0;

  const halt = (): void => {
    generation += 1;
    asking = false;
    clearTimeout(timer);
  };

  const attempt = (asked: number): void => {
    if (powerOn === undefined) return;
    void powerOn(adapter.index).then((answer) => {
      if (asked !== generation || !asking) return;
      if (answer.ok) {
        asking = false;
        return logger.debug({ adapter: adapter.name }, 'asked the kernel to power the adapter on');
      }
      if (!answer.retry) {
        asking = false;
        return logger.info({ adapter: adapter.name, reason: answer.reason }, 'the kernel refused to power the adapter on; it stays as it is until that is fixed');
      }
      if (!notReadySaid) {
        notReadySaid = true;
        logger.info({ adapter: adapter.name, reason: answer.reason }, 'the adapter is not ready to be powered on yet; asking again until it is');
      } else logger.debug({ adapter: adapter.name, reason: answer.reason, retryMs: delayMs }, 'the adapter is still not ready');
      clearTimeout(timer);
      timer = setTimeout(() => attempt(asked), delayMs);
      timer.unref();
      delayMs = Math.min(delayMs * 2, POWER_ON_RETRY_MAX_MS);
    });
  };

  return {
    ask() {
      halt();
      asking = true;
      delayMs = POWER_ON_RETRY_FIRST_MS;
      attempt(generation);
    },
    up: halt,
    stop: halt,
  };
}
