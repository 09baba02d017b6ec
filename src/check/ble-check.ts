import { accessSync, constants } from 'node:fs';
import type { Config } from '../config/index.js';
import type { BleState } from '../daemon/ble-probe.js';
import { fail, off, pass, type CheckResult } from './result.js';

export type BleProbe = (hciDevice: number) => Promise<BleState>;

/**
 * The adapter is powered on. With PANIC_PAIR_BLE=auto the daemon runs without a radio it cannot
 * use, so there a missing or unusable adapter passes as skipped, with the reason; with `on` it fails.
 */
export async function checkBle(config: Config, probe: BleProbe): Promise<CheckResult> {
  if (config.ble === 'off') return off('ble', 'off (PANIC_PAIR_BLE=off)');
  if (config.bleReplay !== undefined) return checkReplay(config.bleReplay);
  const state = await probe(config.hciDevice);
  const adapter = `hci${config.hciDevice}`;
  if (state.state === 'scanning' || state.state === 'starting') return pass('ble', `adapter ${adapter} is powered on`);
  const reason = state.reason ?? state.state;
  if (config.ble === 'auto') return off('ble', `no usable adapter ${adapter} (${reason}); with PANIC_PAIR_BLE=auto the daemon runs without BLE`);
  return fail('ble', `adapter ${adapter} cannot be used: ${reason}`, fixFor(state, config.hciDevice));
}

function fixFor(state: BleState, hciDevice: number): string {
  const reason = state.reason ?? '';
  if (state.state === 'unauthorized') return 'run the check as root (sudo panic-pair check); the unit grants CAP_NET_RAW and CAP_NET_ADMIN';
  if (state.state === 'powered-off') return 'rfkill unblock bluetooth; bluetoothctl power on';
  if (reason.includes('not installed')) return 'apt-get install build-essential python3, then run systemd/install.sh again (it builds the module)';
  if (reason.startsWith('unsupported')) return 'use a hub with Bluetooth, or set PANIC_PAIR_BLE=off and pair over MQTT';
  return `compare PANIC_PAIR_HCI_DEVICE (now ${hciDevice}) with \`bluetoothctl list\`, and check the adapter with \`bluetoothctl show\``;
}

function checkReplay(file: string): CheckResult {
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return fail('ble', `the capture ${file} cannot be read`, 'correct PANIC_PAIR_BLE_REPLAY, or unset it to use the adapter');
  }
  return pass('ble', `replaying the capture ${file} instead of the adapter`);
}
