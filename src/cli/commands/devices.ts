import type { StatusReport } from '../../status/status-report.js';
import { PanicPairError } from '../../errors.js';
import { reportsWords } from '../../authentication/words.js';
import type { DeviceRow } from '../../supervision/types.js';
import { batteryWords, livenessOf, statusContext, supervisionWords, type SupervisionContext } from '../../supervision/words.js';
import { askDaemon, type ClientOptions } from '../daemon.js';
import { printJson, printLine, table } from '../render.js';

// `panic-pair devices`: the pairing store as the daemon holds it, one row a device, and for a
// linked button whether it is heard, in the words the page uses too, and whether its reports are
// authenticated.

export function devicesTable(devices: readonly DeviceRow[], nowWall = Date.now(), context: SupervisionContext = {}): string {
  const rows = [...devices]
    .sort((a, b) => a.deviceId.localeCompare(b.deviceId))
    .map((device) => {
      const liveness = livenessOf(device);
      return [
        device.deviceId,
        device.state,
        String(device.customerId),
        device.source,
        device.linkId === undefined ? '-' : String(device.linkId),
        device.linkedAt ?? device.updatedAt,
        liveness === undefined ? '-' : supervisionWords(liveness, nowWall, context),
        (liveness === undefined ? undefined : batteryWords(liveness)) ?? '-',
        reportsWords(device) ?? '-',
        device.error ?? '',
      ];
    });
  return table(['DEVICE', 'STATE', 'CUSTOMER', 'SOURCE', 'LINK', 'LINKED/UPDATED', 'HEARD', 'BATTERY', 'REPORTS', 'ERROR'], rows);
}

export async function devicesCommand(options: ClientOptions & { json?: boolean }): Promise<void> {
  const devices = await askDaemon<DeviceRow[]>(options, { type: 'devices' }, { timeoutMs: 10_000 });
  if (!Array.isArray(devices)) throw new PanicPairError('failure', 'the daemon sent a device list this client cannot read');
  if (options.json) printJson(devices);
  else if (devices.length === 0) printLine('no devices paired yet');
  else process.stdout.write(devicesTable(devices, Date.now(), await wordsContext(options, devices)));
}

// Why a button is `unknown`, or whether `unsupervised` means supervision is off, is worth a
// second question only when one is.
async function wordsContext(options: ClientOptions, devices: readonly DeviceRow[]): Promise<SupervisionContext> {
  if (!devices.some((device) => device.supervision === 'unknown' || device.supervision === 'unsupervised')) return {};
  const status = await askDaemon<StatusReport>(options, { type: 'status' }, { timeoutMs: 10_000 });
  return statusContext(status);
}
