import { createCipheriv } from 'node:crypto';

// Published BTHome v2 encryption vectors, and reports encrypted here the way a button does, with
// node:crypto's encryption (the code under test only decrypts).
//
// The bytes below are copied from outside this project, never computed by it:
// - bthome.io, "Encryption": key 231d39c1d7cc1ab1aee224cd096db932, MAC 5448E68F80A5, device
//   information 0x41, counter bytes 00112233 (nonce 5448e68f80a5d2fc4100112233), objects
//   02CA09 03BF13 (25.06 °C, 50.55 %);
// - bthome-ble 3.20.0's tests, which pin the encrypted bytes of that example and of others:
//   tests/test_v2_encryption.py (test_encryption_example_1 and _2) and tests/test_parser_v2.py
//   (test_increasing_encryption_counter, test_decreasing_encryption_counter,
//   test_reset_encryption_counter, test_bthome_with_mac_encrypted,
//   test_encrypted_shelly_blu_button_event), each a report its parser verifies with the key.
// A counter is the 4 bytes before the check, little-endian: 00 11 22 33 is 0x33221100.

export interface PublishedReport {
  key: Buffer;
  /** The address the advertisement came from. */
  mac: string;
  /** The BTHome service data after the UUID. */
  serviceData: Buffer;
  counter: number;
}

const KEY = Buffer.from('231d39c1d7cc1ab1aee224cd096db932', 'hex');
const MAC = '54:48:E6:8F:80:A5';
const published = (hex: string, counter: number, key = KEY, mac = MAC): PublishedReport => ({ key, mac, serviceData: Buffer.from(hex, 'hex'), counter });

/** bthome.io's worked example, encrypted: test_encryption_example_1's bytes after d2 fc. */
export const VECTOR = {
  ...published('41a47266c95f730011223378237214', 0x33221100),
  /** Temperature 25.06 °C (0x02) and humidity 50.55 % (0x03), as bthome.io gives them before encryption. */
  objects: Buffer.from('02ca0903bf13', 'hex'),
};

/** test_encryption_example_2: a motion object (0x21, 1), same key, MAC and counter. */
export const MOTION = { ...published('4187b90011223372b0231f', 0x33221100), objects: Buffer.from('2101', 'hex') };

/** test_increasing_encryption_counter, test_decreasing_encryption_counter: three counters of one button. */
export const COUNTED = {
  at1122866: published('41723d3035fb88322211009e7414c0', 1122866),
  at1122867: published('41e445f3c9962b332211006c7c4519', 1122867),
  at1122868: published('413e932cc7175f34221100553876af', 1122868),
};

/** test_reset_encryption_counter: the highest counter, then 0. */
export const COUNTER_ENDS = {
  highest: published('41ba0db07aeef6ffffffff21fd4600', 0xffff_ffff),
  zero: published('41de40b50e676600000000d7cb95de', 0),
};

/** test_bthome_with_mac_encrypted: device information 0x43, the MAC in the payload, reversed. */
export const MAC_INCLUDED = published('43a5808fe64854f196c06ffb4900112233f08ecbde', 0x33221100);

/** test_encrypted_shelly_blu_button_event: a Shelly BLU Button's own report, trigger based (0x45). */
export const SHELLY_BUTTON = published('450aeb84467f85ba0100003188788c', 442, Buffer.from('90bffd73cb6b26ef58a7a8eba9232036', 'hex'), 'B4:35:22:F5:3D:A4');

export interface Encryption {
  key: Uint8Array;
  mac: string;
  counter: number;
  objects: Uint8Array;
  /** Put the MAC in the payload, reversed (device information bit 1). */
  macIncluded?: boolean;
  triggerBased?: boolean;
}

/** BTHome v2 service data (after the UUID) as a keyed button sends it. */
export function encryptReport(report: Encryption): Buffer {
  const info = 0x40 | 0x01 | (report.macIncluded === true ? 0x02 : 0) | (report.triggerBased === true ? 0x04 : 0);
  const mac = Buffer.from(report.mac.replace(/:/g, ''), 'hex');
  const counter = Buffer.alloc(4);
  counter.writeUInt32LE(report.counter);
  const nonce = Buffer.concat([mac, Buffer.from([0xd2, 0xfc]), Buffer.of(info), counter]);
  const cipher = createCipheriv('aes-128-ccm', report.key, nonce, { authTagLength: 4 });
  const encrypted = cipher.update(report.objects);
  cipher.final();
  const included = report.macIncluded === true ? Buffer.from(mac).reverse() : Buffer.alloc(0);
  return Buffer.concat([Buffer.of(info), included, encrypted, counter, cipher.getAuthTag()]);
}
