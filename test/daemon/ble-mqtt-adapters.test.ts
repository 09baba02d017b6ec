import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanEntry } from '../../src/pairing/types.js';
import type { CliResult } from '../support/binary.js';
import { postsFor, startHarness, type DaemonHarness } from '../support/daemon-harness.js';
import { publishOnce } from '../support/mqtt-observer.js';
import { waitFor } from '../support/wait.js';

// A button heard by a BLE gateway (Theengs / OpenMQTTGateway, BTtoMQTT) pairs like one heard by
// the hub's radio, through the same profiles and RSSI floor; a Zigbee button pairs when its
// Zigbee2MQTT interview succeeds. The real daemon, broker and binary.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-adapters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const IEEE = '0x00124b00088ccd58';
const GATEWAYS = 'site/+/BTtoMQTT/+';

const theengs = (name: string, rssi: number): string => JSON.stringify({ id: 'C4:64:9F:5E:94:54', mac_type: 0, name, rssi, manufacturerdata: '59000001' });
const interview = JSON.stringify({
  type: 'device_interview',
  data: { friendly_name: IEEE, ieee_address: IEEE, status: 'successful', supported: true, definition: { model: 'SOS-1', vendor: 'Acme', description: 'SOS button', exposes: [], options: [] } },
});

describe('BLE gateways and Zigbee2MQTT feeding the daemon', () => {
  let hub: DaemonHarness;
  const publish = (topic: string, payloads: string[]): Promise<void> => publishOnce(hub.broker.url, topic, payloads);

  /**
   * Publishes every 100 ms until the command settles: a button pressed over and over. Returns once
   * the daemon has had every press, so that none is counted in the next test: a probe published
   * after them, which it drops, has come through.
   */
  async function pressUntil(running: Promise<CliResult>, topic: string, payloads: string[]): Promise<CliResult> {
    let done = false;
    const finished = running.finally(() => (done = true));
    while (!done) {
      await publish(topic, payloads);
      await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    const dropped = (await hub.status()).counters.dropped;
    await hub.publishRaw('{"harness":"probe"}');
    await waitFor(async () => (await hub.status()).counters.dropped > dropped, { what: 'the presses to reach the daemon' });
    return finished;
  }

  beforeAll(async () => {
    const config = path.join(dir, 'config.json');
    const profiles = [
      { name: 'panic-button', match: { namePrefix: 'PANIC-' }, deviceId: { from: 'nameSuffix' } },
      { name: 'zigbee-sos', match: { zigbeeModel: 'SOS-1' }, deviceId: { from: 'ieeeAddress' }, deviceTypeId: 3 },
    ];
    writeFileSync(config, JSON.stringify({ profiles }), { mode: 0o644 });
    hub = await startHarness({ env: { PANIC_PAIR_CONFIG: config, PANIC_PAIR_MQTT_BLE_GATEWAYS: GATEWAYS, PANIC_PAIR_ZIGBEE2MQTT_PREFIX: 'z2m' } });
  });
  afterAll(() => hub?.close());

  it('pairs a button heard by a gateway by id, with the gateway as its source', async () => {
    const result = await pressUntil(hub.cli(['pair', 'GW0001']), 'site/TheengsGateway/BTtoMQTT/C4649F5E9454', [theengs('PANIC-GW0001', -58)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Linked GW0001');
    expect((await hub.devices()).find((device) => device.deviceId === 'GW0001')).toMatchObject({ state: 'linked', source: 'ble-gateway:TheengsGateway' });
  });

  it('shows gateway buttons in scan with their source and RSSI', async () => {
    const scan = await pressUntil(hub.cli(['scan', '--seconds', '1', '--json']), 'site/OMG_hall/BTtoMQTT/AABBCC000001', [theengs('PANIC-GW0002', -64)]);
    const entries = JSON.parse(scan.stdout) as ScanEntry[];
    expect(entries.find((entry) => entry.deviceId === 'GW0002')).toMatchObject({ source: 'ble-gateway:OMG_hall', rssi: -64 });
  });

  it('holds the RSSI floor for gateway reports in a pairing window', async () => {
    const window = hub.cli(['pair', '--window', '2']);
    await waitFor(async () => (await hub.status()).windowOpenUntil, { what: 'the window to open' });
    const result = await pressUntil(window, 'site/TheengsGateway/BTtoMQTT/C4649F5E9454', [theengs('PANIC-GWSTRONG', -55), theengs('PANIC-GWWEAK', -91)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Linked GWSTRONG');
    expect(postsFor(hub, 'GWSTRONG')).toBe(1);
    expect(postsFor(hub, 'GWWEAK')).toBe(0);
  });

  it('pairs a Zigbee button whose interview succeeded, by its IEEE address', async () => {
    const result = await pressUntil(hub.cli(['pair', IEEE]), 'z2m/bridge/event', [interview]);
    expect(result.code, result.stderr).toBe(0);
    expect((await hub.devices()).find((device) => device.deviceId === IEEE)).toMatchObject({ state: 'linked', source: 'zigbee2mqtt', deviceTypeId: 3 });
  });

  it('counts broken gateway and Zigbee2MQTT messages as dropped, and goes on', async () => {
    const before = (await hub.status()).counters;
    await publish('site/TheengsGateway/BTtoMQTT/C4649F5E9454', ['{"id":', JSON.stringify({ id: 'X', rssi: 'loud' })]);
    await publish('z2m/bridge/event', ['not json', JSON.stringify({ type: 'device_joined', data: { ieee_address: IEEE } })]);
    await waitFor(async () => (await hub.status()).counters.announcements >= before.announcements + 4, { what: 'the four messages' });
    const after = (await hub.status()).counters;
    expect(after.dropped - before.dropped).toBe(3);
    expect(after.announcements - before.announcements).toBe(4);
    const result = await pressUntil(hub.cli(['pair', 'GWAFTER']), 'site/TheengsGateway/BTtoMQTT/C4649F5E9454', [theengs('PANIC-GWAFTER', -60)]);
    expect(result.code, result.stderr).toBe(0);
  });

  it('counts a battery out of range in status --json (batteryDropped), keeping the sighting', async () => {
    const before = (await hub.status()).counters;
    const report = JSON.stringify({ id: 'C4:64:9F:5E:94:57', name: 'PANIC-GWBATT', rssi: -60, servicedatauuid: 'fcd2', servicedata: '4001fa' });
    const scan = await pressUntil(hub.cli(['scan', '--seconds', '1', '--json']), 'site/TheengsGateway/BTtoMQTT/C4649F5E9457', [report]);
    expect((JSON.parse(scan.stdout) as ScanEntry[]).find((entry) => entry.deviceId === 'GWBATT')).toMatchObject({ source: 'ble-gateway:TheengsGateway' });
    const after = (await hub.status()).counters;
    expect(after.batteryDropped - before.batteryDropped).toBeGreaterThanOrEqual(1);
    // Only the probe pressUntil ends with: the report itself was not dropped.
    expect(after.dropped).toBe(before.dropped + 1);
  });
});
