// The Bluetooth adapter the daemon scans with: named by the kernel's index (`0`, `hci0`), or by its
// address, which stays the same when the kernel numbers the adapter anew (a USB adapter plugged
// back in, a controller that crashed and came back as hci1).
import { z } from 'zod';
import { must } from './fields.js';

export type AdapterChoice = { readonly index: number } | { readonly address: string };

/** The highest index the kernel gives an HCI device (HCI_MAX_DEV is 16 bits; a hub has one or two). */
const MAX_INDEX = 1023;
const INDEX = /^(?:hci)?(\d{1,4})$/i;
const ADDRESS = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/i;

/** `0`, `hci0` or `AA:BB:CC:DD:EE:FF` (any case); a JSON number from the config file too. */
export function adapterChoice(form: string) {
  const parse = (value: unknown): unknown => {
    const word = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : value;
    if (typeof word !== 'string') return word;
    const index = INDEX.exec(word);
    if (index !== null && Number(index[1]) <= MAX_INDEX) return { index: Number(index[1]) };
    if (ADDRESS.test(word)) return { address: word.toUpperCase() };
    return value;
  };
  const choice = z.union([z.object({ index: z.number().int() }), z.object({ address: z.string() })], must(form));
  return z.preprocess(parse, choice);
}

/** How messages name the choice: `hci0`, or the address. */
export function adapterLabel(choice: AdapterChoice): string {
  return 'index' in choice ? `hci${choice.index}` : choice.address;
}
