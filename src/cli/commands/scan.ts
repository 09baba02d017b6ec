import type { ScanEntry } from '../../pairing/types.js';
import { PanicPairError } from '../../errors.js';
import { askDaemon, checkWait, type ClientOptions } from '../daemon.js';
import { ago, printJson, printLine, rssiText, table } from '../render.js';

// `panic-pair scan`: the buttons heard now, strongest first, so an installer holding one button
// next to the hub sees it at the top.

const DEFAULT_SECONDS = 5;
const CLIENT_GUARD_MS = 15_000;

/** Strongest RSSI first; buttons without an RSSI (most MQTT announcements) last, by id. */
export function byStrength(entries: readonly ScanEntry[]): ScanEntry[] {
  return [...entries].sort((a, b) => {
    if (a.rssi !== undefined && b.rssi !== undefined && a.rssi !== b.rssi) return b.rssi - a.rssi;
    if (a.rssi === undefined && b.rssi !== undefined) return 1;
    if (a.rssi !== undefined && b.rssi === undefined) return -1;
    return a.deviceId.localeCompare(b.deviceId);
  });
}

export function scanTable(entries: readonly ScanEntry[], now: number): string {
  const rows = byStrength(entries).map((entry) => [
    entry.deviceId,
    entry.source,
    rssiText(entry.rssi),
    ago(entry.lastSeen, now),
    entry.state ?? 'not paired',
  ]);
  return table(['DEVICE', 'SOURCE', 'RSSI', 'LAST SEEN', 'PAIRED'], rows);
}

export async function scanCommand(options: ClientOptions & { seconds?: number; json?: boolean }): Promise<void> {
  const seconds = options.seconds ?? DEFAULT_SECONDS;
  checkWait('--seconds', seconds);
  const entries = await askDaemon<ScanEntry[]>(
    options,
    { type: 'scan', seconds },
    {
      timeoutMs: seconds * 1000 + CLIENT_GUARD_MS,
      onConnect() {
        if (process.stderr.isTTY) process.stderr.write(`Listening for ${seconds} s...\n`);
      },
    },
  );
  if (!Array.isArray(entries)) throw new PanicPairError('failure', 'the daemon sent a scan this client cannot read');
  if (options.json) printJson(byStrength(entries));
  else if (entries.length === 0) printLine(`no buttons heard in ${seconds} s (press one, or check \`panic-pair status\`)`);
  else process.stdout.write(scanTable(entries, Date.now()));
}
