// A button's id, where the sources that hear it, the store that keeps it and the topics that name
// it meet: one rule, below all of them.

/** `deviceId` is 1 to 64 characters of `A-Z a-z 0-9 . _ : -`. */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export function isValidDeviceId(value: unknown): value is string {
  return typeof value === 'string' && DEVICE_ID_PATTERN.test(value);
}
