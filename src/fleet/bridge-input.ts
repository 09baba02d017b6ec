import path from 'node:path';
import { readGuardedFile } from '../config/file-access.js';
import { PanicPairError } from '../errors.js';
import type { BridgeFields, BridgeTls } from './bridge.js';

// `bridge-config`'s flags checked into a bridge's typed fields. Each refusal names its flag
// (exit 2): a bridge that mosquitto refuses, or one that publishes outside `hubs/<hub-id>/`, is
// found here on the hub rather than in a fleet that stays silent.

export interface BridgeFlags {
  central: string;
  hubId: string;
  cafile?: string;
  certfile?: string;
  keyfile?: string;
}

const HUB_ID = /^[A-Za-z0-9._-]{1,64}$/;
const DEFAULT_PORTS: Record<string, number> = { 'mqtt:': 1883, 'mqtts:': 8883 };

function usage(message: string): PanicPairError {
  return new PanicPairError('usage', message);
}

/** 1 to 64 of `A-Z a-z 0-9 . _ -`: one topic level, never a separator or a wildcard. */
export function isHubId(value: string): boolean {
  return HUB_ID.test(value);
}

export function checkHubId(hubId: string): string {
  if (isHubId(hubId)) return hubId;
  const why = /[/+#]/.test(hubId) ? " (a / + or # would put the hub's topics outside hubs/<hub-id>/)" : '';
  throw usage(`--hub-id ${JSON.stringify(hubId)} is not a hub id${why}: use 1 to 64 characters of A-Z a-z 0-9 . _ -`);
}

/** `who` is told to use a client certificate in place of a password in the URL. */
export function checkCentral(value: string, who = 'the hub'): { host: string; port: number; tls: boolean } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usage(`--central ${JSON.stringify(value)} is not a URL; expected mqtt://host:port or mqtts://host:port`);
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) throw usage(`--central must be an mqtt:// or mqtts:// URL, not ${url.protocol}//`);
  if (url.hostname === '') throw usage('--central names no host; expected mqtt://host:port or mqtts://host:port');
  // The printed file would hold the password in clear, readable wherever it is copied.
  if (url.username !== '' || url.password !== '') {
    throw usage(`--central must not carry a user or password: give ${who} a client certificate (--certfile and --keyfile)`);
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    throw usage('--central must be only mqtt(s)://host:port, without a path or query');
  }
  return { host: url.hostname, port: url.port === '' ? defaultPort : Number(url.port), tls: url.protocol === 'mqtts:' };
}

/** An absolute path mosquitto can be given on a line of its own, to a readable PEM file. */
function checkPemFile(flag: string, file: string): string {
  const absolute = path.resolve(file);
  if (/\s/.test(absolute)) throw usage(`${flag} ${JSON.stringify(file)}: a path with spaces or line breaks cannot go on a mosquitto line`);
  let text: string;
  try {
    text = readGuardedFile(absolute, flag);
  } catch (error) {
    throw usage((error as Error).message);
  }
  if (!text.includes('-----BEGIN ')) throw usage(`${flag} ${absolute} holds no PEM block; is it the right file?`);
  return absolute;
}

function checkTls(flags: BridgeFlags, secure: boolean): BridgeTls | undefined {
  const given = (['cafile', 'certfile', 'keyfile'] as const).filter((key) => flags[key] !== undefined);
  if (!secure) {
    if (given.length > 0) throw usage(`--${given[0]} needs an mqtts:// --central (mqtt:// is plain TCP)`);
    return undefined;
  }
  if (flags.certfile !== undefined && flags.keyfile === undefined) throw usage('--certfile needs --keyfile (the key of that certificate)');
  if (flags.keyfile !== undefined && flags.certfile === undefined) throw usage('--keyfile needs --certfile (the certificate of that key)');
  const tls: BridgeTls = {};
  if (flags.cafile !== undefined) tls.caFile = checkPemFile('--cafile', flags.cafile);
  if (flags.certfile !== undefined && flags.keyfile !== undefined) {
    tls.client = { certFile: checkPemFile('--certfile', flags.certfile), keyFile: checkPemFile('--keyfile', flags.keyfile) };
  }
  return tls;
}

/** The bridge's fields from the flags and the hub's own prefix; throws a usage error naming the flag. */
export function bridgeFieldsOf(flags: BridgeFlags, prefix: string): BridgeFields {
  const hubId = checkHubId(flags.hubId);
  const central = checkCentral(flags.central);
  if (/\s/.test(prefix)) throw new PanicPairError('config', `PANIC_PAIR_MQTT_PREFIX ${JSON.stringify(prefix)} holds a space; a mosquitto bridge cannot carry it`);
  const tls = checkTls(flags, central.tls);
  return { hubId, prefix, central: { host: central.host, port: central.port }, ...(tls === undefined ? {} : { tls }) };
}
