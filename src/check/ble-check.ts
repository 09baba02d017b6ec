import { accessSync, constants, existsSync } from 'node:fs';
import { adapterLabel, type AdapterChoice, type Config } from '../config/index.js';
import type { BleState } from './ble-probe.js';
import { bleModuleFix, bleModuleProblemOf } from '../discovery/ble-module.js';
import { POWER_ON_FIX, RFKILL_FIX } from '../discovery/ble.js';
import { fail, off, pass, type CheckResult } from './result.js';

/** Where the kernel lists its Bluetooth adapters, whether or not they can be used. */
const SYSFS_BLUETOOTH = '/sys/class/bluetooth';

export type BleProbe = (adapter: AdapterChoice) => Promise<BleState>;

/**
 * The adapter is powered on. With PANIC_PAIR_BLE=auto the daemon runs without a radio it cannot
 * use, so there a missing or unusable adapter passes as skipped, with the reason; with `on` it fails.
 */
export async function checkBle(config: Config, probe: BleProbe): Promise<CheckResult> {
  if (config.ble === 'off') return off('ble', 'off (PANIC_PAIR_BLE=off, or "ble": "off" in config.json)');
  if (config.bleReplay !== undefined) return checkReplay(config.bleReplay);
  const state = await probe(config.hciDevice);
  const adapter = adapterLabel(config.hciDevice);
  if (state.state === 'scanning' || state.state === 'starting') {
    return pass('ble', state.heldByDaemon === true ? `adapter ${adapter} is ${state.state}, as the running daemon reports (its scan is left alone)` : `adapter ${adapter} is powered on`);
  }
  const reason = state.reason ?? state.state;
  const problem = bleModuleProblemOf(reason);
  if (problem !== undefined) return checkModule(config, reason, bleModuleFix(problem));
  if (config.ble === 'auto') {
    const skipped = off('ble', `no usable adapter ${adapter} (${reason}); with BLE on auto (PANIC_PAIR_BLE, "ble" in config.json) the daemon runs without BLE`);
    // An adapter that is there but blocked or off is one command from working: say which.
    return state.state === 'blocked' || state.state === 'powered-off' ? { ...skipped, fix: fixFor(state, config.hciDevice) } : skipped;
  }
  return fail('ble', `adapter ${adapter} cannot be used: ${reason}`, fixFor(state, config.hciDevice));
}

function fixFor(state: BleState, hciDevice: AdapterChoice): string {
  const reason = state.reason ?? '';
  if (state.state === 'unauthorized') return 'run the check as root (sudo panic-pair check); the unit grants CAP_NET_RAW and CAP_NET_ADMIN';
  if (state.state === 'blocked') return RFKILL_FIX;
  if (state.state === 'powered-off') return POWER_ON_FIX;
  if (reason.startsWith('unsupported')) return 'use a hub with Bluetooth, or turn BLE off (PANIC_PAIR_BLE=off, or "ble": "off" in config.json) and pair over MQTT';
  const now = 'index' in hciDevice ? String(hciDevice.index) : hciDevice.address;
  return `compare PANIC_PAIR_HCI_DEVICE (now ${now}; "hciDevice" in config.json) with \`bluetoothctl list\`, and check the adapter with \`bluetoothctl show\`; on a Raspberry Pi, \`systemctl status hciuart\` (it brings hci0 up, sometimes late)`;
}

/**
 * The Bluetooth modules cannot be loaded. Under auto that is a failure where the kernel shows an
 * adapter (BLE would be lost without a word), and a skip with its fix where there is none.
 */
function checkModule(config: Config, reason: string, fix: string): CheckResult {
  const adapter = adapterLabel(config.hciDevice);
  if (config.ble === 'auto' && 'index' in config.hciDevice && !existsSync(`${SYSFS_BLUETOOTH}/${adapter}`)) {
    return { ...off('ble', `no adapter ${adapter}, and ${reason}`), fix };
  }
  return fail('ble', `BLE cannot be used on ${adapter}: ${reason}`, fix);
}

function checkReplay(file: string): CheckResult {
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return fail('ble', `the capture ${file} cannot be read`, 'correct PANIC_PAIR_BLE_REPLAY, or unset it to use the adapter');
  }
  return pass('ble', `replaying the capture ${file} instead of the adapter`);
}
