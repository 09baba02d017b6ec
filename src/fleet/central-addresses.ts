import { PanicPairError } from '../errors.js';

// `--central URL,URL,...` and `--central-protocol`: one central broker,
// or the nodes of a cluster. Shared by `bridge-config` (which lists them all in the bridge) and
// `fleet` (which reads from the first node that answers).

/** What `--central-protocol` may name: the MQTT version the cluster takes. */
export const CENTRAL_PROTOCOLS = ['mqttv311', 'mqttv5'] as const;
export type CentralProtocol = (typeof CENTRAL_PROTOCOLS)[number];

/** More nodes than any cluster a fleet runs: a longer list is a mistake (a pasted file). */
const MAX_NODES = 16;

export interface CentralNode {
  /** As given, without a trailing slash: how messages name the node. */
  text: string;
  host: string;
  port: number;
  tls: boolean;
}

function usage(message: string): PanicPairError {
  return new PanicPairError('usage', message);
}

const DEFAULT_PORTS: Record<string, number> = { 'mqtt:': 1883, 'mqtts:': 8883 };

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

/** Each address checked; all of one scheme, since one set of TLS flags serves them all. */
export function centralNodesOf(value: string, who?: string): CentralNode[] {
  const texts = value.split(',').map((text) => text.trim());
  if (texts.some((text) => text === '')) throw usage(`--central ${JSON.stringify(value)} has an empty address between its commas`);
  if (texts.length > MAX_NODES) throw usage(`--central names ${texts.length} addresses; a cluster of at most ${MAX_NODES} nodes is expected`);
  const nodes = texts.map((text) => ({ text: text.replace(/\/$/, ''), ...checkCentral(text, who) }));
  if (nodes.some((node) => node.tls !== nodes[0]!.tls)) {
    throw usage('--central mixes mqtt:// and mqtts:// addresses: the nodes of one cluster take the same TLS flags, so give one scheme');
  }
  const seen = new Set<string>();
  for (const node of nodes) {
    const key = `${node.host}:${node.port}`;
    if (seen.has(key)) throw usage(`--central names ${key} twice`);
    seen.add(key);
  }
  return nodes;
}

export function centralProtocolOf(value: string | undefined): CentralProtocol | undefined {
  if (value === undefined) return undefined;
  const protocol = CENTRAL_PROTOCOLS.find((known) => known === value);
  if (protocol === undefined) throw usage(`--central-protocol ${JSON.stringify(value)}: expected one of ${CENTRAL_PROTOCOLS.join(', ')}`);
  return protocol;
}

/**
 * The list turned by the hub id, so that a fleet's hubs spread over the nodes: hub `h` starts at
 * node `fnv1a(h) mod n`. The hash is fixed here (not Node's), so a hub's first node is the same
 * for every version that prints its bridge.
 */
export function turnedFor<T>(hubId: string, nodes: readonly T[]): T[] {
  if (nodes.length <= 1) return [...nodes];
  const start = fnv1a(hubId) % nodes.length;
  return [...nodes.slice(start), ...nodes.slice(0, start)];
}

/** 32-bit FNV-1a over the id's UTF-16 code units (hub ids are ASCII). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
