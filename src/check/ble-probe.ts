import { adapterLabel, type AdapterChoice } from '../config/adapter.js';
import type { AdapterFinder, FoundAdapter } from '../discovery/adapter-finder.js';
import type { HciSocket } from '../discovery/kernel-hci-socket.js';
import type { StatusReport } from '../status/status-report.js';

export interface BleState {
  state: StatusReport['ble'];
  reason?: string;
  /** Read from the running daemon, which holds the adapter, rather than probed (`check`). */
  heldByDaemon?: true;
}

const PROBE_TIMEOUT_MS = 5_000;

export interface ProbeOptions {
  /** In place of the kernel's HCI socket (tests); then sysfs is not read unless `finder` is given. */
  socket?: HciSocket;
  /** The adapters the kernel lists; sysfs by default. */
  finder?: AdapterFinder;
  timeoutMs?: number;
}

/**
 * Whether the hub's own radio can be used, for `check`: the adapter is looked for as the daemon's
 * recovery ladder looks for it (by index, or by address), noble is loaded (lazily: it is native and
 * opens the HCI socket as it loads), the adapter's first state is awaited, and noble is closed.
 * `starting` means powered on and usable; otherwise the state and the reason, as `status` says it.
 */
export async function probeBle(choice: AdapterChoice, options: ProbeOptions = {}): Promise<BleState> {
  const finder = options.finder ?? (options.socket === undefined ? (await import('../discovery/adapter-finder.js')).sysfsAdapters() : undefined);
  const listed = finder?.adapters() ?? null;
  const label = adapterLabel(choice);
  const { blocked } = await import('../discovery/ble.js');
  const absent = (): BleState => ({ state: 'unavailable', reason: `no adapter ${label} (not present): check \`bluetoothctl list\`, and on a Raspberry Pi \`systemctl status hciuart\`` });
  const withRfkill = (adapter: FoundAdapter, state: BleState): BleState => {
    const block = state.state === 'powered-off' ? finder?.rfkill(adapter.name) : undefined;
    return block === undefined ? state : blocked(adapter.name, block);
  };
  if ('index' in choice) {
    const adapter = { name: `hci${choice.index}`, index: choice.index };
    if (listed !== null && !listed.some((a) => a.index === choice.index)) return absent();
    return withRfkill(adapter, (await probeOne(adapter, options)).state);
  }
  const candidates = listed ?? [{ name: 'hci0', index: 0 }];
  const byAddress = candidates.find((a) => a.address === choice.address);
  for (const adapter of byAddress === undefined ? candidates : [byAddress]) {
    const probed = await probeOne(adapter, options);
    if (byAddress !== undefined || probed.address === choice.address) return withRfkill(adapter, probed.state);
  }
  return absent();
}

async function probeOne(adapter: FoundAdapter, options: ProbeOptions): Promise<{ state: BleState; address?: string }> {
  const { conditionOf, conditionOfOpenError } = await import('../discovery/ble.js');
  let radio;
  try {
    const { loadNoble } = await import('../discovery/noble-loader.js');
    radio = loadNoble(options.socket === undefined ? { hciDevice: adapter.index } : { hciDevice: adapter.index, socket: options.socket });
  } catch (error) {
    return { state: conditionOfOpenError(error, adapter.name) };
  }
  const opened = radio;
  return new Promise((resolve) => {
    const finish = (state: BleState): void => {
      clearTimeout(timer);
      const address = opened.address();
      opened.close();
      resolve(address === undefined ? { state } : { state, address });
    };
    const timer = setTimeout(
      () => finish({ state: 'unavailable', reason: `${adapter.name} reported no state within ${PROBE_TIMEOUT_MS / 1000} s` }),
      options.timeoutMs ?? PROBE_TIMEOUT_MS,
    );
    opened.noble.on('stateChange', (state) => {
      if (state === 'unknown' || state === 'resetting') return;
      finish(conditionOf(state, adapter.name));
    });
    try {
      opened.open();
    } catch (error) {
      finish(conditionOfOpenError(error, adapter.name));
    }
  });
}
