import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PairingEngine } from '../../src/pairing/engine.js';
import type { LinkOutcome, PairProgress } from '../../src/pairing/types.js';
import type { Seed } from '../../src/simulator/index.js';
import { PairingStore } from '../../src/store/index.js';
import type { Fault } from '../store/fixtures/faulty-fs.js';
import { REAL_IO_TIMEOUT_MS } from '../support/loaded-machine.js';
import { rig, tempDir } from './engine-rig.js';

// The engine against the project's own simulator over real HTTP and a real store on disk.

const pairNow = (engine: PairingEngine, deviceId: string, timeoutMs = 10_000): Promise<LinkOutcome> =>
  engine.pair(deviceId, { timeoutMs, signal: new AbortController().signal, onProgress: () => {} });

const seen = (deviceId: string, extra: { source?: string; rssi?: number } = {}) => ({ deviceId, source: 'mqtt', at: performance.now(), ...extra });

describe('PairingEngine', () => {
  it('writes the linking record durably before the POST goes out', async () => {
    const { engine, simulator, store } = await rig();
    simulator.setFaults({ latencyMs: 0, queue: [{ type: 'delay', route: 'link', ms: 400 }] });
    engine.sighting(seen('A1'));
    const outcome = pairNow(engine, 'A1');
    // Once the POST has reached the simulator (which holds it), the file on disk already says `linking`.
    await expect.poll(() => simulator.stats().postsByDevice.A1, { timeout: REAL_IO_TIMEOUT_MS }).toBe(1);
    expect(readFileSync(store.file, 'utf8')).toContain('"linking"');
    await expect(outcome).resolves.toMatchObject({ ok: true, record: { state: 'linked', linkId: expect.any(Number) } });
    expect(JSON.parse(readFileSync(store.file, 'utf8')).devices[0]).toMatchObject({ deviceId: 'A1', state: 'linked' });
  });

  it('sends no request when the linking record cannot be written', async () => {
    const fault = { current: null as Fault | null };
    const { engine, simulator, store } = await rig({ fault });
    await engine.gate.check();
    fault.current = { step: 'sync-temp', code: 'ENOSPC' };
    engine.sighting(seen('B1'));
    const outcome = await pairNow(engine, 'B1');
    expect(outcome).toMatchObject({ ok: false, kind: 'store' });
    expect(simulator.stats().postsByDevice.B1).toBeUndefined();
    expect(store.health().ok).toBe(false);
    fault.current = null;
    await expect(pairNow(engine, 'B1')).resolves.toMatchObject({ ok: true });
  });

  it('makes one GET and one POST a device for a burst of concurrent requests', async () => {
    const { engine, simulator } = await rig();
    const ids = Array.from({ length: 40 }, (_, i) => `D${i}`);
    for (const id of ids) engine.sighting(seen(id));
    const outcomes = await Promise.all([...ids, ...ids].map((id) => pairNow(engine, id)));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    const stats = simulator.stats();
    expect(stats.subscriptionGets).toBe(1);
    expect(ids.every((id) => stats.postsByDevice[id] === 1)).toBe(true);
    expect(stats.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('never posts a linked device again', async () => {
    const { engine, simulator } = await rig();
    engine.sighting(seen('C1'));
    await pairNow(engine, 'C1');
    await expect(pairNow(engine, 'C1')).resolves.toMatchObject({ ok: true, alreadyLinked: true });
    expect(simulator.stats().postsByDevice.C1).toBe(1);
  });

  it('asks again after a negative entitlement answer, and posts nothing meanwhile', async () => {
    const seed: Seed = { customers: [{ id: 42, subscriptions: [{ id: 1, subscriptionTypeId: 1, status: 'cancelled', dependantCustomerIds: [] }] }] };
    const { engine, simulator, entitlements } = await rig({ seed });
    engine.sighting(seen('E1'));
    await expect(pairNow(engine, 'E1')).resolves.toMatchObject({ ok: false, kind: 'not-entitled' });
    await expect(pairNow(engine, 'E1')).resolves.toMatchObject({ ok: false, kind: 'not-entitled' });
    expect(simulator.stats().subscriptionGets).toBe(2);
    expect(simulator.stats().requests.link).toBe(0);
    expect(entitlements.at(-1)).toMatchObject({ customerId: 42, entitled: false });
  });

  it('reports an unknown customer as its own kind', async () => {
    const { engine } = await rig({ seed: { customers: [{ id: 7, subscriptions: [] }] } });
    engine.sighting(seen('F1'));
    await expect(pairNow(engine, 'F1')).resolves.toMatchObject({ ok: false, kind: 'customer-not-found' });
  });

  it('times out when the button is not seen', async () => {
    const { engine } = await rig();
    await expect(pairNow(engine, 'G1', 200)).resolves.toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('pairs a button seen only after the request', async () => {
    const { engine } = await rig();
    const steps: string[] = [];
    const outcome = engine.pair('H1', { timeoutMs: 10_000, signal: new AbortController().signal, onProgress: (p) => steps.push(p.step) });
    await expect.poll(() => steps, { timeout: REAL_IO_TIMEOUT_MS }).toContain('waiting');
    engine.sighting(seen('H1'));
    await expect(outcome).resolves.toMatchObject({ ok: true });
    expect(steps).toEqual(['waiting', 'checking', 'linking', 'linked']);
  });

  it('links nothing that was only seen, without a request', async () => {
    const { engine, simulator } = await rig();
    engine.sighting(seen('S1'));
    const entries = await engine.scan(0.01, new AbortController().signal);
    expect(entries.map((entry) => entry.deviceId)).toContain('S1');
    expect(simulator.stats().requests.link).toBe(0);
    expect(engine.devices()).toEqual([]);
  });

  it('in a window, links strong buttons only, and nothing after it closes', async () => {
    const { engine, simulator } = await rig();
    const reported: string[] = [];
    let closeWindow!: () => void;
    const controller = new AbortController();
    closeWindow = () => controller.abort();
    const window = engine.openWindow(60, { signal: controller.signal, onOutcome: (o) => reported.push(o.ok ? o.record.deviceId : o.deviceId) });
    engine.sighting(seen('W1', { source: 'ble', rssi: -50 }));
    engine.sighting(seen('W2', { source: 'ble', rssi: -90 }));
    engine.sighting(seen('W3'));
    await expect.poll(() => reported.length, { timeout: REAL_IO_TIMEOUT_MS }).toBe(2);
    closeWindow();
    const report = await window;
    expect(report.outcomes.map((o) => (o.ok ? o.record.deviceId : o.deviceId)).sort()).toEqual(['W1', 'W3']);
    engine.sighting(seen('W4', { source: 'ble', rssi: -40 }));
    await engine.gate.check();
    expect(simulator.stats().postsByDevice.W4).toBeUndefined();
    expect(simulator.stats().postsByDevice.W2).toBeUndefined();
  });

  it('auto-pairs every strong button when configured', async () => {
    const { engine } = await rig({ autoPair: true });
    const linked: string[] = [];
    engine.onDevice((record) => record.state === 'linked' && linked.push(record.deviceId));
    engine.sighting(seen('AUTO1', { source: 'ble', rssi: -40 }));
    await expect.poll(() => linked, { timeout: REAL_IO_TIMEOUT_MS }).toEqual(['AUTO1']);
  });

  it('records a 400 as rejected with the API message, and a reply naming another device as failed', async () => {
    const { engine, simulator } = await rig();
    simulator.setFaults({ rejectDeviceIds: ['R1'], queue: [{ type: 'other-device', route: 'link' }] });
    engine.sighting(seen('X1'));
    await expect(pairNow(engine, 'X1')).resolves.toMatchObject({ ok: false, kind: 'invalid-reply', record: { state: 'failed' } });
    engine.sighting(seen('R1'));
    const rejected = await pairNow(engine, 'R1');
    expect(rejected).toMatchObject({ ok: false, kind: 'rejected', record: { state: 'rejected' } });
    expect(rejected.ok ? '' : rejected.message).toContain('R1');
  });

  it('finishes a linking record left by a crash', async () => {
    const dir = tempDir('engine-recover-');
    const first = await PairingStore.open(dir);
    await first.put({ deviceId: 'K1', state: 'linking', customerId: 42, source: 'mqtt', updatedAt: new Date().toISOString() });
    await first.close();
    const { engine, simulator } = await rig({ dir });
    const outcomes = await engine.recover();
    expect(outcomes).toMatchObject([{ ok: true, record: { deviceId: 'K1', state: 'linked' } }]);
    expect(simulator.stats().postsByDevice.K1).toBe(1);
  });
});

describe('PairingEngine background retries', () => {
  it('completes a pairing that failed while the API was unreachable, once it is back', async () => {
    const { engine, simulator } = await rig({
      apiTimeoutMs: 2000,
      apiRetry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2 },
      backgroundRetry: { limit: Number.POSITIVE_INFINITY, baseDelayMs: 50, maxDelayMs: 100, maxRetryAfterMs: 100 },
    });
    await engine.gate.check();
    // The API drops every link request (both attempts of the first try, and a few more).
    simulator.setFaults({ queue: [{ type: 'drop', route: 'link', count: 4 }] });
    engine.sighting(seen('P1'));
    // The installer gives up (Ctrl-C) at the first wait `pair` shows: the background takes over.
    const cancel = new AbortController();
    const waits: PairProgress[] = [];
    const pairing = engine.pair('P1', {
      timeoutMs: 30_000,
      signal: cancel.signal,
      onProgress: (progress) => {
        if (progress.step !== 'retrying') return;
        waits.push(progress);
        cancel.abort();
      },
    });
    await expect(pairing).resolves.toMatchObject({ ok: false, kind: 'failure' });
    expect(waits[0]?.wait?.reason).toMatch(/dropped/);
    expect(engine.record('P1')?.state).toBe('failed');
    expect(engine.pendingRetries).toBe(1);
    await expect.poll(() => engine.record('P1')?.state, { timeout: REAL_IO_TIMEOUT_MS }).toBe('linked');
    expect(engine.pendingRetries).toBe(0);
    expect(simulator.stats().links).toBe(1);
  });

  it('leaves automatic pairing to the next sighting: no background retry', async () => {
    const { engine, simulator } = await rig({ autoPair: true });
    await engine.gate.check();
    simulator.setFaults({ queue: [{ type: 'drop', route: 'link', count: 2 }] });
    const failed: string[] = [];
    engine.onDevice((record) => record.state === 'failed' && failed.push(record.deviceId));
    engine.sighting(seen('AUTOFAIL', { source: 'ble', rssi: -40 }));
    await expect.poll(() => failed, { timeout: REAL_IO_TIMEOUT_MS }).toEqual(['AUTOFAIL']);
    expect(engine.pendingRetries).toBe(0);
  });
});
