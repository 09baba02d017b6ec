import path from 'node:path';
import { readGuardedFile } from '../config/file-access.js';
import { PanicPairError } from '../errors.js';
import type { BridgeFields, BridgeTls } from './bridge.js';
import { centralNodesOf, centralProtocolOf, turnedFor } from './central-addresses.js';

// `bridge-config`'s flags checked into a bridge's typed fields. Each refusal names its flag
// (exit 2): a bridge that mosquitto refuses, or one that publishes outside `hubs/<hub-id>/`, is
// found here on the hub rather than in a fleet that stays silent.

export interface BridgeFlags {
  /** One address, or a cluster's: `URL,URL,...` */
  central: string;
  centralProtocol?: string;
  hubId: string;
  cafile?: string;
  certfile?: string;
  keyfile?: string;
}

const HUB_ID = /^[A-Za-z0-9._-]{1,64}$/;

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
  const nodes = centralNodesOf(flags.central);
  const protocol = centralProtocolOf(flags.centralProtocol);
  if (protocol === 'mqttv311') checkClusterHubId(hubId);
  if (/\s/.test(prefix)) throw new PanicPairError('config', `PANIC_PAIR_MQTT_PREFIX ${JSON.stringify(prefix)} holds a space; a mosquitto bridge cannot carry it`);
  const tls = checkTls(flags, nodes[0]!.tls);
  return {
    hubId,
    prefix,
    central: turnedFor(hubId, nodes).map(({ host, port }) => ({ host, port })),
    ...(protocol === undefined ? {} : { protocol }),
    ...(tls === undefined ? {} : { tls }),
  };
}

/**
 * A cluster that takes MQTT 3.1.1 only is NATS Server, and 2.9 (Debian bookworm's) closes the
 * connection of a client that publishes a `.` in a topic: the bridge would connect, be cut, and
 * connect again without end. Refused rather than mapped: `site.7` mapped to `site_7` could make
 * two hubs one row.
 */
function checkClusterHubId(hubId: string): void {
  if (!hubId.includes('.')) return;
  throw usage(
    `--hub-id ${JSON.stringify(hubId)} holds a ".": with --central-protocol mqttv311 (NATS Server), 2.9 refuses a . in a topic and cuts the bridge's connection; refused rather than mapped: give a hub id of A-Z a-z 0-9 _ -`,
  );
}
