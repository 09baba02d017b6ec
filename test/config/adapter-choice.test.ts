import { afterAll, describe, expect, it } from 'vitest';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

describe('hciDevice: the adapter by index, hciN or address', () => {
  it.each([
    ['0', { index: 0 }],
    ['1023', { index: 1023 }],
    ['hci1', { index: 1 }],
    ['HCI2', { index: 2 }],
    [' hci3 ', { index: 3 }],
    ['aa:bb:cc:dd:ee:0f', { address: 'AA:BB:CC:DD:EE:0F' }],
    ['C4:64:9F:5E:94:54', { address: 'C4:64:9F:5E:94:54' }],
  ])('PANIC_PAIR_HCI_DEVICE=%s', (value, expected) => {
    expect(scratch.load({ env: { PANIC_PAIR_HCI_DEVICE: value } }).hciDevice).toEqual(expected);
  });

  it('takes a number or a string from the config file', () => {
    expect(scratch.load({ env: { PANIC_PAIR_CONFIG: scratch.config({ hciDevice: 1 }) } }).hciDevice).toEqual({ index: 1 });
    expect(scratch.load({ env: { PANIC_PAIR_CONFIG: scratch.config({ hciDevice: '02:00:00:00:00:01' }) } }).hciDevice).toEqual({ address: '02:00:00:00:00:01' });
  });

  it.each(['-1', '1024', 'hci', 'hcix', 'hci-1', 'AA:BB:CC:DD:EE', 'AA-BB-CC-DD-EE-FF', 'GG:BB:CC:DD:EE:FF', '1.5'])('refuses %s, naming the setting', (value) => {
    const error = configError(() => scratch.load({ env: { PANIC_PAIR_HCI_DEVICE: value } }));
    expect(error.message).toBe(
      `PANIC_PAIR_HCI_DEVICE must be the Bluetooth adapter: its index from 0 to 1023 (0 for hci0), hciN, or its address AA:BB:CC:DD:EE:FF (found again when the kernel renumbers it); got "${value}"`,
    );
  });

  it('names the config file key for a bad value there', () => {
    const file = scratch.config({ hciDevice: true });
    expect(configError(() => scratch.load({ env: { PANIC_PAIR_CONFIG: file } })).message).toMatch(/hciDevice.*must be the Bluetooth adapter/);
  });
});
