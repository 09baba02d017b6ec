// Button keys as the installer gives them: one key in `pair --key-file F`
// (or on standard input), or one `<deviceId> <key>` a line in PANIC_PAIR_BUTTON_KEYS_FILE. A key
// is 32 hex digits, a button's 16-byte AES key. Every refusal names the setting and the line,
// never the key: an error message reaches logs and terminals.
import { isValidDeviceId } from '../device-id.js';
import { PanicPairError } from '../errors.js';
import { readSecretFile } from './secret-file.js';
import { SETTINGS } from './settings.js';

const KEY_PATTERN = /^[0-9a-fA-F]{32}$/;
export const KEY_FORM = '32 hex digits (the button\'s 16-byte key)';
/** A file of keys for a shop's worth of buttons, with room for comments. */
const MAX_KEYS_FILE_BYTES = 1 << 20;

/** A key's bytes, or undefined when `text` is not 32 hex digits. */
export function keyOf(text: string): Buffer | undefined {
  return KEY_PATTERN.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** The one key of `pair --key-file` (`label` names where it came from). Surrounding whitespace and
 * a trailing newline are the norm; a `#` line is a comment. */
export function parseOneKey(text: string, label: string): Buffer {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (lines.length !== 1) throw new PanicPairError('config', `${label} must hold one key, ${KEY_FORM}; it holds ${lines.length === 0 ? 'none' : `${lines.length} lines`}`);
  const key = keyOf(lines[0]!);
  if (key === undefined) throw new PanicPairError('config', `${label} must hold ${KEY_FORM}; its key is not (the key itself is not shown)`);
  return key;
}

/** PANIC_PAIR_BUTTON_KEYS_FILE's text as keys by deviceId. */
export function parseKeysFile(text: string, label = SETTINGS.buttonKeysFile.env): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${label} line ${index + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length !== 2) throw new PanicPairError('config', `${where} must be \`<deviceId> <key>\`, the key ${KEY_FORM} (the line is not shown: it may hold a key)`);
    const [deviceId, keyText] = fields as [string, string];
    if (!isValidDeviceId(deviceId)) throw new PanicPairError('config', `${where}: the deviceId must be 1 to 64 characters of A-Z a-z 0-9 . _ : -`);
    const key = keyOf(keyText);
    if (key === undefined) throw new PanicPairError('config', `${where}: the key of ${deviceId} must be ${KEY_FORM} (the key itself is not shown)`);
    if (keys.has(deviceId)) throw new PanicPairError('config', `${where}: ${deviceId} has a key on an earlier line already`);
    keys.set(deviceId, key);
  });
  return keys;
}

/** Reads PANIC_PAIR_BUTTON_KEYS_FILE: refused (exit 2) when group or others can read it. */
export function readKeysFile(path: string): Map<string, Buffer> {
  return parseKeysFile(readSecretFile(path, SETTINGS.buttonKeysFile.env, MAX_KEYS_FILE_BYTES));
}
