// The fuzz targets, one an entry point of outside input. `jazzer`: a parser of
// bytes, fuzzed coverage-guided by Jazzer.js (test/fuzz/targets/<name>.mjs exports fuzz(data));
// `property`: a function over structured values, checked by fast-check
// (test/fuzz/properties/<name>.mjs exports property()). Inputs that ever failed are kept in
// test/fuzz/<name>/ and replayed by `npm test` (test/fuzz/replay.test.ts).

export const TARGETS = [
  { name: 'announce', kind: 'jazzer', sync: true, covers: 'MQTT announcements: parser, compact reader, the source\'s counters' },
  { name: 'zigbee2mqtt', kind: 'jazzer', sync: true, covers: 'Zigbee2MQTT bridge events through a Zigbee profile; the device list, the bridge state and a known button\'s reports with their battery' },
  { name: 'ble-gateway', kind: 'jazzer', sync: true, covers: 'BTtoMQTT reports and their topics through the BLE profiles, BTHome and batt batteries; gateways\' last wills' },
  { name: 'btsnoop', kind: 'jazzer', sync: true, covers: 'btsnoop captures: monitor (2001), H4 (1002), HCI (1001)' },
  { name: 'hci', kind: 'jazzer', sync: true, instrument: ['@abandonware/noble'], covers: 'HCI events through noble\'s own HCI and GAP parsing, BTHome service data, the BLE source' },
  { name: 'control', kind: 'jazzer', sync: false, covers: 'control-socket frames: split lines, huge lines, bad JSON, unknown requests' },
  { name: 'page-http', kind: 'jazzer', sync: false, options: ['--disable_bug_detectors=ssrf'], covers: 'the page\'s HTTP requests over a socket: method, path, headers, cookies, body, sign-in, live' },
  { name: 'config-file', kind: 'jazzer', sync: true, covers: 'the JSON configuration file through the whole loader' },
  { name: 'provision-csv', kind: 'jazzer', sync: true, covers: 'the provisioning CSV: parse and plan' },
  { name: 'api-replies', kind: 'jazzer', sync: true, covers: 'the API\'s reply bodies and Retry-After values' },
  { name: 'settings', kind: 'property', covers: 'every setting\'s value, from the environment and the file' },
  { name: 'api-client', kind: 'property', covers: 'the API client against a server that answers any status, headers and body, or never ends' },
  { name: 'provision-flags', kind: 'property', covers: 'the flags of `panic-pair provision`, and the user-data a hub of them renders' },
  { name: 'control-requests', kind: 'property', covers: 'control and page requests as structured JSON values' },
];

export function targetNamed(name) {
  const target = TARGETS.find((t) => t.name === name);
  if (target === undefined) throw new Error(`no fuzz target "${name}"; the targets: ${TARGETS.map((t) => t.name).join(', ')}`);
  return target;
}
