import type { Authenticator } from '../authentication/authenticator.js';
import { monotonicNow } from '../clock.js';
import type { ControlHandlers } from '../control/handlers.js';
import { PanicPairError } from '../errors.js';
import { seconds, timeoutSignal } from '../pairing/deadline.js';
import { belongsMessage, otherOwner } from '../pairing/ownership.js';
import type { DeviceRecord } from '../store/record.js';
import type { LinkOutcome } from '../pairing/types.js';

// `pair <deviceId>` with the button's key, from --key-file or from
// PANIC_PAIR_BUTTON_KEYS_FILE: nothing is posted until a report of the button verifies with it,
// and one that does not ends the request with exit 9. An already linked button paired again with
// its key posts nothing: its current counter is accepted (after a battery change), and it says so.

export interface KeyedPairingParts {
  authenticator: Pick<Authenticator, 'tryKey' | 'adopt' | 'fileKey' | 'whenKeyNeeded'>;
  record(deviceId: string): DeviceRecord | undefined;
  hubCustomerId: number;
}

export function keyedPairing(pair: ControlHandlers['pair'], parts: KeyedPairingParts): ControlHandlers['pair'] {
  return async (deviceId, options) => {
    const key = options.key ?? parts.authenticator.fileKey(deviceId);
    if (key === undefined) return pairWithoutKey(pair, parts, deviceId, options);
    const customerId = options.customerId ?? parts.hubCustomerId;
    const record = parts.record(deviceId);
    // Another customer's button is refused before anything is tried, as without a key.
    if (record !== undefined && otherOwner(record, customerId) !== undefined) {
      return { ok: false, deviceId, kind: 'other-customer', message: belongsMessage(record, customerId) };
    }
    const started = monotonicNow();
    const timeout = timeoutSignal(options.timeoutMs, options.signal);
    const trial = parts.authenticator.tryKey(deviceId, key);
    const stopped = new Promise<never>((_, reject) => timeout.signal.addEventListener('abort', () => reject(timeout.signal.reason as Error), { once: true }));
    options.onProgress({ deviceId, step: 'waiting', customerId });
    try {
      const outcome = await Promise.race([trial.outcome, stopped]);
      if (!outcome.verified) {
        return { ok: false, deviceId, kind: 'unverified', message: `the key does not verify this button's reports (${outcome.why}); nothing was posted for ${deviceId}` };
      }
      await parts.authenticator.adopt(deviceId, key, outcome.report);
      if (record?.state === 'linked') return { ok: true, record, alreadyLinked: true, counterAccepted: outcome.report.counter } satisfies LinkOutcome;
      const left = Math.max(1, options.timeoutMs - (monotonicNow() - started));
      return await pair(deviceId, { ...options, timeoutMs: left });
    } catch (error) {
      if (!(error instanceof PanicPairError)) throw error;
      const message = error.kind === 'timeout' ? `${deviceId} sent no report to verify with its key within ${seconds(options.timeoutMs)}; nothing was posted` : error.message;
      return { ok: false, deviceId, kind: error.kind, message };
    } finally {
      trial.dispose();
      timeout.dispose();
    }
  };
}

/** Without a key: as before, except that a button whose profile has `keyRequired` ends the wait
 * at its first report (exit 2), rather than at the time-out. */
async function pairWithoutKey(
  pair: ControlHandlers['pair'],
  parts: KeyedPairingParts,
  deviceId: string,
  options: Parameters<ControlHandlers['pair']>[1],
): Promise<LinkOutcome> {
  const controller = new AbortController();
  const onCancel = (): void => controller.abort(options.signal.reason);
  if (options.signal.aborted) onCancel();
  else options.signal.addEventListener('abort', onCancel, { once: true });
  let needed: string | undefined;
  const stop = parts.authenticator.whenKeyNeeded(deviceId, (profile) => {
    needed = profile;
    controller.abort(new PanicPairError('usage', `${deviceId} is a button of profile ${profile}, which is linked only with its key: pair it with --key-file, or give its key in PANIC_PAIR_BUTTON_KEYS_FILE`));
  });
  try {
    const outcome = await pair(deviceId, { ...options, signal: controller.signal });
    // The engine reports a cancelled wait as a failure of its own words: the reason is this one.
    if (!outcome.ok && needed !== undefined) return { ok: false, deviceId, kind: 'usage', message: (controller.signal.reason as Error).message };
    return outcome;
  } finally {
    stop();
    options.signal.removeEventListener('abort', onCancel);
  }
}
