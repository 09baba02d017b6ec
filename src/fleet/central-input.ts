import { readGuardedFile } from '../config/file-access.js';
import { PanicPairError } from '../errors.js';
import { centralNodesOf, centralProtocolOf } from './central-addresses.js';

// `fleet`'s flags checked into what its connection needs: the central
// broker's address (or each node's, for a cluster), the MQTT version when one is named, and, for
// mqtts://, the CA and this reader's own certificate, read now so a bad file is named (exit 2)
// before anything connects.

export interface CentralFlags {
  /** One address, or a cluster's: `URL,URL,...` */
  central: string;
  centralProtocol?: string;
  cafile?: string;
  certfile?: string;
  keyfile?: string;
}

export interface CentralSettings {
  url: URL;
  /** Scheme, host and port: how messages name the broker. */
  address: string;
  /** `--central-protocol`: only this MQTT version; absent: 5, then 3.1.1 where 5 is refused. */
  protocolVersion?: 4 | 5;
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

/** One settings a node, in the order given: `fleet` reads from the first that answers. */
export function centralSettingsOf(flags: CentralFlags): CentralSettings[] {
  const nodes = centralNodesOf(flags.central, 'this reader');
  const protocol = centralProtocolOf(flags.centralProtocol);
  const shared: Omit<CentralSettings, 'url' | 'address'> = protocol === undefined ? {} : { protocolVersion: protocol === 'mqttv5' ? 5 : 4 };
  const given = (['cafile', 'certfile', 'keyfile'] as const).filter((key) => flags[key] !== undefined);
  if (!nodes[0]!.tls) {
    if (given.length > 0) throw usage(`--${given[0]} needs an mqtts:// --central (mqtt:// is plain TCP)`);
  } else {
    if (flags.certfile !== undefined && flags.keyfile === undefined) throw usage('--certfile needs --keyfile (the key of that certificate)');
    if (flags.keyfile !== undefined && flags.certfile === undefined) throw usage('--keyfile needs --certfile (the certificate of that key)');
    if (flags.cafile !== undefined) shared.ca = pem('--cafile', flags.cafile);
    if (flags.certfile !== undefined && flags.keyfile !== undefined) {
      shared.client = { cert: pem('--certfile', flags.certfile), key: pem('--keyfile', flags.keyfile, KEY_GUARD) };
    }
  }
  return nodes.map((node) => {
    const url = new URL(node.text);
    return { url, address: `${url.protocol}//${url.host}`, ...shared };
  });
}
