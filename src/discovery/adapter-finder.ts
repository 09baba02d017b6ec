import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// What the kernel says of its Bluetooth adapters, read from sysfs: which hciN exist now, the address
// of each where the kernel shows it, and whether rfkill blocks one. Reading it is a readdir and a few
// small reads, cheap enough to do every second while an adapter is awaited. The root is a parameter,
// so that tests lay out a directory of their own in its place.

export interface FoundAdapter {
  /** `hci0` */
  name: string;
  index: number;
  /** Upper case, where sysfs shows it (older kernels); otherwise learned once the adapter is opened. */
  address?: string;
}

export interface RfkillBlock {
  /** `rfkill block bluetooth`: lifted by `rfkill unblock bluetooth`. */
  soft: boolean;
  /** A switch or the firmware: software cannot lift it. */
  hard: boolean;
}

export interface AdapterFinder {
  /** The adapters the kernel lists; null when it lists no Bluetooth at all (no module loaded, no sysfs): then the socket decides. */
  adapters(): FoundAdapter[] | null;
  /** The rfkill block on `name`, or undefined when nothing blocks it. */
  rfkill(name: string): RfkillBlock | undefined;
}

const ADAPTER = /^hci(\d+)$/;

export function sysfsAdapters(root = '/sys'): AdapterFinder {
  const bluetooth = path.join(root, 'class', 'bluetooth');
  const rfkillClass = path.join(root, 'class', 'rfkill');
  return {
    adapters() {
      let names: string[];
      try {
        names = readdirSync(bluetooth);
      } catch {
        return null;
      }
      const found: FoundAdapter[] = [];
      // Connections are listed too, as hci0:11; only the adapters are wanted.
      for (const name of names) {
        const index = ADAPTER.exec(name)?.[1];
        if (index === undefined) continue;
        const address = readWord(path.join(bluetooth, name, 'address'))?.toUpperCase();
        found.push(address === undefined ? { name, index: Number(index) } : { name, index: Number(index), address });
      }
      return found.sort((a, b) => a.index - b.index);
    },
    rfkill(name) {
      // Each adapter has its own rfkill switch, named after it; a platform switch of type bluetooth
      // (a laptop's, a board's) blocks every adapter.
      let entries: string[];
      try {
        entries = readdirSync(rfkillClass);
      } catch {
        return undefined;
      }
      const block: RfkillBlock = { soft: false, hard: false };
      for (const entry of entries) {
        const dir = path.join(rfkillClass, entry);
        if (readWord(path.join(dir, 'type')) !== 'bluetooth') continue;
        const owner = readWord(path.join(dir, 'name')) ?? '';
        if (owner !== name && ADAPTER.test(owner)) continue;
        block.soft ||= readWord(path.join(dir, 'soft')) === '1';
        block.hard ||= readWord(path.join(dir, 'hard')) === '1';
      }
      return block.soft || block.hard ? block : undefined;
    },
  };
}

function readWord(file: string): string | undefined {
  try {
    const word = readFileSync(file, 'utf8').trim();
    return word === '' ? undefined : word;
  } catch {
    return undefined;
  }
}
