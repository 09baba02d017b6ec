import { PanicPairError } from '../errors.js';
import type { ControlHandlers } from '../control/handlers.js';
import type { BleSide } from './ble-side.js';
import type { MqttSide } from './mqtt-side.js';

// `pair <id>` waits for the button to be heard. When no source can hear it (the broker refuses
// every subscription the hub listens on, and BLE is not scanning), waiting out the time-out only
// hides the cause: the request fails at once, exit 1, with the broker's reason and the fix. While
// BLE still scans the wait goes on (the button may be a BLE one), and `status` names the refusal.
// A pairing window that could hear nothing is refused as it opens, for the same reason.

export interface Hearing {
  /** Why no button can be heard now; undefined while some source can hear one. */
  deafness(): string | undefined;
  /** Called when that may have changed; returns the way to stop listening. */
  onChange(listener: () => void): () => void;
}

export function guardPairing(pair: ControlHandlers['pair'], hearing: Hearing): ControlHandlers['pair'] {
  return async (deviceId, options) => {
    const deaf = hearing.deafness();
    if (deaf !== undefined) return { ok: false, deviceId, kind: 'failure', message: `cannot hear ${deviceId}: ${deaf}` };
    const controller = new AbortController();
    const onCancel = (): void => controller.abort(options.signal.reason);
    if (options.signal.aborted) onCancel();
    else options.signal.addEventListener('abort', onCancel, { once: true });
    // Only the wait for the button is cut short: once heard, its link goes on as asked.
    let waiting = true;
    const stop = hearing.onChange(() => {
      const reason = waiting ? hearing.deafness() : undefined;
      if (reason !== undefined) controller.abort(new PanicPairError('failure', `cannot hear ${deviceId}: ${reason}`));
    });
    try {
      return await pair(deviceId, {
        ...options,
        signal: controller.signal,
        onProgress(progress) {
          if (progress.step !== 'waiting') waiting = false;
          options.onProgress(progress);
        },
      });
    } finally {
      stop();
      options.signal.removeEventListener('abort', onCancel);
    }
  };
}

export function guardWindow(window: ControlHandlers['window'], hearing: Hearing): ControlHandlers['window'] {
  return (seconds, options) => {
    const deaf = hearing.deafness();
    if (deaf !== undefined) return Promise.reject(new PanicPairError('failure', `a pairing window would hear no button: ${deaf}`));
    return window(seconds, options);
  };
}

/**
 * BLE scanning (or starting) may still hear the button. Otherwise the hub is deaf when MQTT cannot
 * hear either (the broker refuses its subscriptions, or MQTT is off while BLE is wanted but
 * unusable), and the reason names both.
 */
export function hearingOf(
  ble: Pick<BleSide, 'state' | 'reason'>,
  mqtt: Pick<MqttSide, 'deafness' | 'onRefusalChange'> | undefined,
): Hearing {
  return {
    deafness: () => {
      if (ble.state === 'scanning' || ble.state === 'starting') return undefined;
      const mqttDeaf = mqtt === undefined ? (ble.state === 'off' ? undefined : 'MQTT is off') : mqtt.deafness();
      if (mqttDeaf === undefined) return undefined;
      return ble.state === 'off' ? mqttDeaf : `BLE is ${ble.state}${ble.reason === undefined ? '' : ` (${ble.reason})`}, and ${mqttDeaf}`;
    },
    onChange: (listener) => mqtt?.onRefusalChange(listener) ?? (() => undefined),
  };
}
