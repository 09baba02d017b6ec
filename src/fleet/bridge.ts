// A mosquitto bridge from a hub's broker to a central one, built from a
// few typed fields as thin-edge.io builds its bridges: every line comes from one field here, so
// no hand-edited text drifts between hubs. The checks on the fields are in bridge-input.ts.

import type { CentralProtocol } from './central-addresses.js';

/** Where a hub's topics appear on the central broker: `<prefix>/health` as `hubs/<hub-id>/health`. */
export const CENTRAL_ROOT = 'hubs';

/** The bridge's keepalive: a hub whose uplink died silently shows `0` centrally within 1.5 times this. */
export const BRIDGE_KEEPALIVE_SECONDS = 60;
/**
 * Reconnect backoff, base and cap in seconds (mosquitto's decorrelated jitter): after a central
 * broker restarts, ten thousand hubs come back spread over a minute rather than all at once.
 */
export const BRIDGE_RESTART_SECONDS = { base: 5, cap: 60 } as const;
/** The CA directory of Debian's ca-certificates, for a central broker with a public certificate. */
export const SYSTEM_CA_PATH = '/etc/ssl/certs';

export interface BridgeTls {
  /** The CA that signed the central broker's certificate; the system CAs when left out. */
  caFile?: string;
  /** The hub's own certificate and key, when the central broker asks clients for one. */
  client?: { certFile: string; keyFile: string };
}

export interface BridgeFields {
  /** Checked: 1 to 64 of `A-Z a-z 0-9 . _ -` (no topic level separator or wildcard). */
  hubId: string;
  /** The hub's topic prefix (PANIC_PAIR_MQTT_PREFIX). */
  prefix: string;
  /** One broker, or a cluster's nodes already turned by the hub id (central-addresses.ts). */
  central: Array<{ host: string; port: number }>;
  /** `--central-protocol`; absent: MQTT 3.1.1 marked as a bridge, what one mosquitto, EMQX or HiveMQ take. */
  protocol?: CentralProtocol;
  /** Present for mqtts:// */
  tls?: BridgeTls;
}

/** The bridge's connection name, unique on the hub's broker. */
export function bridgeConnection(hubId: string): string {
  return `panic-pair-${hubId}`;
}

/** The client id the bridge uses on the central broker: one per hub, or hubs would disconnect each other. */
export function bridgeClientId(hubId: string): string {
  return `panic-pair-hub-${hubId}`;
}

/** `hubs/<hub-id>/`: where a hub's `<prefix>/` topics appear centrally. */
export function centralPrefix(hubId: string): string {
  return `${CENTRAL_ROOT}/${hubId}/`;
}

/** The bridge's own state on the central broker: retained `1` while connected, `0` (its will) after. */
export function bridgeStateTopic(hubId: string): string {
  return `${centralPrefix(hubId)}bridge/state`;
}

type Directive = [key: string, ...values: Array<string | number | boolean>];

function directives(fields: BridgeFields): Directive[] {
  const { hubId, prefix, central, tls } = fields;
  const list: Directive[] = [
    ['connection', bridgeConnection(hubId)],
    ['address', ...central.map((node) => `${addressHost(node.host)}:${node.port}`)],
    // A cluster's nodes are equals: after a node fails the bridge stays on the next one, rather
    // than leave it to go back to the first (mosquitto's default) and move its hubs twice.
    ...(central.length > 1 ? [['round_robin', true] as Directive] : []),
    ['remote_clientid', bridgeClientId(hubId)],
    ...protocolDirectives(fields.protocol),
    // A clean session at each connect: the central broker gets the current retained state (health,
    // status, devices) again, never a backlog of stale messages queued while the link was down.
    ['cleansession', true],
    ['keepalive_interval', BRIDGE_KEEPALIVE_SECONDS],
    ['start_type', 'automatic'],
    ['restart_timeout', BRIDGE_RESTART_SECONDS.base, BRIDGE_RESTART_SECONDS.cap],
    ['notifications', true],
    ['notification_topic', bridgeStateTopic(hubId)],
    ...carried(fields.protocol).map((topic): Directive => ['topic', topic, 'out', 1, `${prefix}/`, centralPrefix(hubId)]),
  ];
  if (tls !== undefined) {
    list.push(tls.caFile === undefined ? ['bridge_capath', SYSTEM_CA_PATH] : ['bridge_cafile', tls.caFile]);
    if (tls.client !== undefined) list.push(['bridge_certfile', tls.client.certFile], ['bridge_keyfile', tls.client.keyFile]);
  }
  return list;
}

function protocolDirectives(protocol: CentralProtocol | undefined): Directive[] {
  // 3.1.1 is what every central broker (mosquitto, EMQX, HiveMQ) speaks; try_private marks the
  // connection as a bridge where the broker understands it, so retained flags arrive as sent.
  if (protocol === undefined) return [['bridge_protocol_version', 'mqttv311'], ['try_private', true]];
  // NATS Server refuses the private mark, once, before mosquitto falls back: asked for plainly.
  if (protocol === 'mqttv311') return [['bridge_protocol_version', 'mqttv311'], ['try_private', false]];
  return [['bridge_protocol_version', 'mqttv50']];
}

/**
 * What a bridge to a 3.1.1-only cluster (NATS Server) carries: the daemon's own topics whose
 * names are fixed, so can never hold a `.`. NATS 2.9 closes the connection of a client that
 * publishes a topic with a `.` or a space ("characters ' ' and '.' not supported for MQTT
 * topics"), and a button's id may hold a `.` (src/device-id.ts): one such button's
 * `<prefix>/devices/<id>` would cut the whole bridge, its health with it, at every reconnect. A
 * mosquitto bridge only swaps a topic's prefix, it cannot rewrite characters within it, so those
 * topics are refused rather than mapped; the hub's broker still has them.
 */
export const CLUSTER_CARRIED = ['health', 'status', 'entitlement'] as const;
/** The topics below `<prefix>/` a 3.1.1-only cluster is not sent, as the printed file names them. */
export const CLUSTER_LEFT = ['devices/<id> (with its availability and supervision)', 'announce'] as const;

/** `<prefix>/#` out, at QoS 1, the prefix replaced by `hubs/<hub-id>/`; to NATS Server, fewer. */
function carried(protocol: CentralProtocol | undefined): readonly string[] {
  return protocol === 'mqttv311' ? CLUSTER_CARRIED : ['#'];
}

/** mosquitto.conf text for /etc/mosquitto/conf.d/. */
export function renderBridge(fields: BridgeFields): string {
  const header = [
    `# panic-pair: this hub's ${fields.prefix}/ topics, carried to ${centralWords(fields)} under ${centralPrefix(fields.hubId)}`,
    '# Made by `panic-pair bridge-config`: run it again rather than edit this file.',
    ...(fields.protocol === 'mqttv311' ? leftWords(fields.prefix) : []),
  ];
  const lines = directives(fields).map(([key, ...values]) => [key, ...values.map(String)].join(' '));
  return `${[...header, ...lines].join('\n')}\n`;
}

/** Said in the file itself, where whoever reads the bridge later will look. */
function leftWords(prefix: string): string[] {
  return [
    `# --central-protocol mqttv311 (NATS Server): only ${CLUSTER_CARRIED.map((topic) => `${prefix}/${topic}`).join(', ')} are carried.`,
    `# Not carried: ${CLUSTER_LEFT.map((topic) => `${prefix}/${topic}`).join(', ')}. NATS Server 2.9 cuts the`,
    "# connection of a publish whose topic holds a '.', a button's id may hold one, and a bridge cannot",
    "# rewrite it: refused rather than mapped. `panic-pair fleet` reads only health, status and the bridge's state.",
  ];
}

function centralWords(fields: BridgeFields): string {
  return fields.central.length === 1 ? 'the central broker' : `a central cluster of ${fields.central.length} nodes (this hub's first listed)`;
}

/** mosquitto reads `address host:port`, an IPv6 address without brackets. */
function addressHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
