// Figure 7, store: bytes written and fsyncs per link during bulk pairing (300 buttons into one
// window, the API answering after 20 ms), with 300 and with 3,000 devices already stored. No
// target: the figures show what a link costs the SD card, and how that grows with
// the store (every write rewrites the whole file, so bytes per link grow with its size).
// The counts are the daemon's own (`status` reports the store's writes, fsyncs and bytes).
import { report, runBench, startDaemon, startMosquitto, startSimulator, tempDir, until } from './lib/harness.mjs';
import { announce, buttonIds, mqttClient, openWindow, seedStore } from './lib/pairing-run.mjs';

const BUTTONS = 300;
const LATENCY_MS = 20;
const PREFIX = 'bench';

await runBench('store', async () => {
  const broker = await startMosquitto();
  const simulator = await startSimulator();
  const client = await mqttClient(broker.url);

  for (const stored of [300, 3_000]) {
    const stateDir = tempDir('store');
    seedStore(stateDir, stored);
    simulator.reset();
    const daemon = await startDaemon({ apiUrl: simulator.url, token: simulator.token, mqttUrl: broker.url, prefix: PREFIX, stateDir });
    await daemon.ready();
    simulator.setFaults({ latencyMs: LATENCY_MS });
    const window = await openWindow(daemon, 120);
    const before = (await daemon.status()).store;
    await announce(client, PREFIX, buttonIds(`STORE${stored}`, BUTTONS));
    const outcomes = await window.waitForOutcomes(BUTTONS);
    const after = await until('the last write to be counted', async () => {
      const status = await daemon.status();
      return status.devices.linked === stored + BUTTONS && status.devices.linking === 0 && status.store;
    });
    await window.close();
    await daemon.stop();

    const linked = outcomes.filter((outcome) => outcome.ok).length;
    const writes = after.writes - before.writes;
    const fsyncs = after.fsyncs - before.fsyncs;
    const bytes = after.bytesWritten - before.bytesWritten;
    report({
      figure: `store, ${stored} stored: KiB written per link`,
      ratio: bytes / linked / 1024,
      detail: `${writes} writes for ${linked} links (${(writes / linked).toFixed(2)} a link), ${(bytes / writes / 1024).toFixed(0)} KiB a write on average`,
      checks: { 'all 300 linked': linked === BUTTONS, 'the daemon reports store writes': Number.isFinite(writes) },
    });
    report({
      figure: `store, ${stored} stored: fsyncs per link`,
      ratio: fsyncs / linked,
      detail: `${fsyncs} fsyncs for ${linked} links (each write: the file, then its directory)`,
      checks: { 'all 300 linked': linked === BUTTONS },
    });
  }
});
