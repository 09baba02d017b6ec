// BTHome v2's first byte of service data, the device information (bthome.io, "Format"): bit 0
// encrypted, bit 1 a 6-byte MAC follows (reversed), bit 2 trigger based, bits 5 to 7 the version.

export interface DeviceInformation {
  encrypted: boolean;
  /** The button's MAC follows this byte, least significant byte first. */
  macIncluded: boolean;
  /** It sends when something happens (a press), not at a steady pace: silence says nothing. */
  triggerBased: boolean;
  version: number;
}

export const ENCRYPTED_BIT = 0x01;
export const MAC_INCLUDED_BIT = 0x02;
export const TRIGGER_BASED_BIT = 0x04;

export function deviceInformation(byte: number): DeviceInformation {
  return {
    encrypted: (byte & ENCRYPTED_BIT) !== 0,
    macIncluded: (byte & MAC_INCLUDED_BIT) !== 0,
    triggerBased: (byte & TRIGGER_BASED_BIT) !== 0,
    version: byte >> 5,
  };
}
