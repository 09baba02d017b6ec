import { createCipheriv } from 'node:crypto';

// bthome.io's published example ("Encryption"), and reports encrypted here the way a button does,
// with node:crypto's encryption (the code under test only decrypts).

export const VECTOR = {
  key: Buffer.from('231d39c1d7cc1ab1aee224cd096db932', 'hex'),
  mac: '54:48:E6:8F:80:A5',
  serviceData: Buffer.from('41e445f3c9962b332211006c7c4519', 'hex'),
  counter: 1122867,
  /** Temperature 25.06 °C (0x02) and humidity 50.55 % (0x03), as bthome.io decrypts it. */
  objects: Buffer.from('02ca0903bf13', 'hex'),
};

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
