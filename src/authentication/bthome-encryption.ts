// BTHome v2 encryption (bthome.io, "Encryption"): AES-128-CCM with the button's own 16-byte key and
// a 4-byte message integrity check. The nonce is the button's MAC (most significant byte first),
// the UUID 0xFCD2 as sent (d2 fc), the device-information byte and the 4-byte counter; there is no
// associated data in version 2. node:crypto does CCM: no dependency is needed.
import { createDecipheriv } from 'node:crypto';
import { deviceInformation, ENCRYPTED_BIT, MAC_INCLUDED_BIT, type DeviceInformation } from './device-information.js';

/** The key of a button: 16 bytes. */
export const KEY_BYTES = 16;
const MAC_BYTES = 6;
const COUNTER_BYTES = 4;
const CHECK_BYTES = 4;
const UUID_AS_SENT = Buffer.from([0xd2, 0xfc]);

export interface Decrypted {
  info: DeviceInformation;
  /** The device-information byte with the encrypted and MAC bits cleared, then the objects:
   * what a plain report of the same objects holds, for the plain reader. */
  plain: Uint8Array;
  /** The counter, an unsigned 32-bit number; greater at each new report. */
  counter: number;
  /** The MAC the nonce used: from the payload when included, else the sender's. */
  mac: string;
}

/** Why service data was not decrypted: never the key, nor anything derived from it. */
export type DecryptRefusal =
  | { refusal: 'plain'; why: string }
  | { refusal: 'forged'; why: string };

/** A MAC `54:48:E6:8F:80:A5` (any case, `:` or `-`) as its 6 bytes, or undefined. */
export function macBytes(mac: string): Buffer | undefined {
  const hex = mac.replace(/[:-]/g, '');
  return /^[0-9a-fA-F]{12}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/**
 * Service data of UUID 0xFCD2 (after the UUID), decrypted and checked with the key, or the reason
 * it was not. `senderMac` is the address the advertisement came from (a gateway's `id`). Pure;
 * never throws, whatever the bytes.
 */
export function decryptBthome(data: Uint8Array, key: Uint8Array, senderMac: string): Decrypted | DecryptRefusal {
  if (data.length === 0) return { refusal: 'plain', why: 'empty BTHome service data' };
  const infoByte = data[0]!;
  const info = deviceInformation(infoByte);
  if (info.version !== 2) return { refusal: 'plain', why: `BTHome version ${info.version}, not 2` };
  if (!info.encrypted) return { refusal: 'plain', why: 'a BTHome report without encryption' };
  let at = 1;
  let mac = senderMac;
  let nonceMac = macBytes(senderMac);
  if (info.macIncluded) {
    nonceMac = Buffer.from(data.subarray(1, 1 + MAC_BYTES)).reverse();
    mac = [...nonceMac].map((byte) => byte.toString(16).padStart(2, '0')).join(':').toUpperCase();
    at += MAC_BYTES;
  }
  if (nonceMac === undefined) return { refusal: 'forged', why: 'no MAC address to check the report with' };
  if (data.length < at + COUNTER_BYTES + CHECK_BYTES) return { refusal: 'forged', why: 'data cut short' };
  if (key.length !== KEY_BYTES) return { refusal: 'forged', why: 'no usable key' };
  const end = data.length;
  const counterBytes = data.subarray(end - CHECK_BYTES - COUNTER_BYTES, end - CHECK_BYTES);
  const nonce = Buffer.concat([nonceMac, UUID_AS_SENT, Buffer.of(infoByte), counterBytes]);
  let objects: Buffer;
  try {
    const decipher = createDecipheriv('aes-128-ccm', key, nonce, { authTagLength: CHECK_BYTES });
    decipher.setAuthTag(data.subarray(end - CHECK_BYTES));
    objects = decipher.update(data.subarray(at, end - CHECK_BYTES - COUNTER_BYTES));
    decipher.final();
  } catch {
    return { refusal: 'forged', why: 'the integrity check does not verify with the key' };
  }
  const plain = new Uint8Array(1 + objects.length);
  plain[0] = infoByte & ~(ENCRYPTED_BIT | MAC_INCLUDED_BIT);
  plain.set(objects, 1);
  const counter = (counterBytes[0]! | (counterBytes[1]! << 8) | (counterBytes[2]! << 16) | (counterBytes[3]! << 24)) >>> 0;
  return { info, plain, counter, mac };
}
