import type { HciSocket } from '../discovery/noble-loader.js';
import type { StatusReport } from './status-report.js';

export interface BleState {
  state: StatusReport['ble'];
  reason?: string;
}

const PROBE_TIMEOUT_MS = 5_000;

/**
 * Whether the hub's own radio can be used, for `check`: noble is loaded (lazily: it is native and
 * opens the HCI socket as it loads), the adapter's first state is awaited, and noble is closed.
 * `starting` means powered on and usable; otherwise the state and the reason, as `status` says it.
 */
export async function probeBle(hciDevice: number, options: { socket?: HciSocket; timeoutMs?: number } = {}): Promise<BleState> {
  const adapter = `hci${hciDevice}`;
  const { conditionOf, conditionOfOpenError } = await import('../discovery/ble.js');
  let radio;
  try {
    const { loadNoble } = await import('../discovery/noble-loader.js');
    radio = loadNoble(options.socket === undefined ? { hciDevice } : { hciDevice, socket: options.socket });
  } catch (error) {
    return conditionOfOpenError(error, adapter);
  }
  const opened = radio;
  return new Promise<BleState>((resolve) => {
    const finish = (state: BleState): void => {
      clearTimeout(timer);
      opened.close();
      resolve(state);
    };
    const timer = setTimeout(
      () => finish({ state: 'unavailable', reason: `${adapter} reported no state within ${PROBE_TIMEOUT_MS / 1000} s` }),
      options.timeoutMs ?? PROBE_TIMEOUT_MS,
    );
    opened.noble.on('stateChange', (state) => {
      if (state === 'unknown' || state === 'resetting') return;
      finish(conditionOf(state, adapter));
    });
    try {
      opened.open();
    } catch (error) {
      finish(conditionOfOpenError(error, adapter));
    }
  });
}
