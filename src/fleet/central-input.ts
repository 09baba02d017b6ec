import { readGuardedFile } from '../config/file-access.js';
import { PanicPairError } from '../errors.js';
import { checkCentral } from './bridge-input.js';

// `fleet`'s flags checked into what its connection needs (CONTRACT.md section 16): the central
// broker's address and, for mqtts://, the CA and this reader's own certificate, read now so a bad
// file is named (exit 2) before anything connects.

export interface CentralFlags {
  central: string;
  cafile?: string;
  certfile?: string;
  keyfile?: string;
}

export interface CentralSettings {
  url: URL;
  /** Scheme, host and port: how messages name the broker. */
  address: string;
  ca?: Buffer;
  client?: { cert: Buffer; key: Buffer };
}

/** Others may not read the reader's key; a monitoring group may (0640 root:nagios is common). */
const KEY_GUARD = { forbidden: 0o007, fix: 'chmod o-rwx on it' };

function usage(message: string): PanicPairError {
  return new PanicPairError('usage', message);
}

function pem(flag: string, file: string, guard?: typeof KEY_GUARD): Buffer {
  let text: string;
  try {
    text = readGuardedFile(file, flag, guard);
  } catch (error) {
    throw usage((error as Error).message);
  }
  if (!text.includes('-----BEGIN ')) throw usage(`${flag} ${file} holds no PEM block; is it the right file?`);
  return Buffer.from(text);
}

export function centralSettingsOf(flags: CentralFlags): CentralSettings {
  const central = checkCentral(flags.central, 'this reader');
  const url = new URL(flags.central);
  const address = `${url.protocol}//${url.host}`;
  const given = (['cafile', 'certfile', 'keyfile'] as const).filter((key) => flags[key] !== undefined);
  if (!central.tls) {
    if (given.length > 0) throw usage(`--${given[0]} needs an mqtts:// --central (mqtt:// is plain TCP)`);
    return { url, address };
  }
  if (flags.certfile !== undefined && flags.keyfile === undefined) throw usage('--certfile needs --keyfile (the key of that certificate)');
  if (flags.keyfile !== undefined && flags.certfile === undefined) throw usage('--keyfile needs --certfile (the certificate of that key)');
  const settings: CentralSettings = { url, address };
  if (flags.cafile !== undefined) settings.ca = pem('--cafile', flags.cafile);
  if (flags.certfile !== undefined && flags.keyfile !== undefined) {
    settings.client = { cert: pem('--certfile', flags.certfile), key: pem('--keyfile', flags.keyfile, KEY_GUARD) };
  }
  return settings;
}
