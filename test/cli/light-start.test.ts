import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf } from '../config/static-imports.js';

// `panic-pair status --json` is what monitoring scripts run every few seconds on a Raspberry Pi,
// where each module loaded costs about a millisecond. Its path (main.ts, then the command the
// shortcut imports) must not pull in the command table or the config-file reader.

const source = (path: string): string => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));

function loadedBy(...entries: string[]): string[] {
  const seen = new Set<string>();
  for (const entry of entries) importsOf(source(entry), seen);
  return [...seen].map((name) => (name.startsWith('/') ? basename(name) : name));
}

const COMMANDER_PATH_ONLY = ['commander', 'program.ts', 'settings.ts'];
const CONFIG_FILE_ONLY = ['paths.ts', 'config-file.ts', 'file-access.ts'];

describe('the shortcut path', () => {
  it.each(['cli/commands/status.ts', 'cli/commands/devices.ts'])('main.ts and %s load neither commander nor the config-file reader', (command) => {
    const loaded = loadedBy('cli/main.ts', 'cli/shortcut.ts', command);
    expect(loaded).toEqual(expect.arrayContaining(['daemon.ts', 'client.ts', 'locations.ts']));
    expect(loaded.filter((name) => [...COMMANDER_PATH_ONLY, ...CONFIG_FILE_ONLY, 'sighting.ts'].includes(name))).toEqual([]);
  });

  it('would notice them', () => {
    expect(loadedBy('cli/program.ts')).toEqual(expect.arrayContaining(COMMANDER_PATH_ONLY));
    expect(loadedBy('config/paths.ts')).toEqual(expect.arrayContaining(CONFIG_FILE_ONLY));
  });
});

// A hub that hears its buttons over BLE alone runs without a broker: its daemon loads the MQTT
// client library (about a hundred modules, 0.25 s of a 0.85 s start on the machine of
// docs/reference/performance.md) only where MQTT is configured.
describe("the daemon's start", () => {
  it('loads neither the MQTT library nor the MQTT side before it knows MQTT is configured', () => {
    const loaded = loadedBy('daemon/daemon.ts');
    expect(loaded).toEqual(expect.arrayContaining(['engine.ts', 'ble-side.ts', 'zod']));
    expect(loaded.filter((name) => ['mqtt', 'mqtt-side.ts', 'state-publisher.ts'].includes(name))).toEqual([]);
  });

  it('would notice them', () => {
    expect(loadedBy('daemon/mqtt-side.ts')).toEqual(expect.arrayContaining(['mqtt', 'mqtt-side.ts', 'state-publisher.ts']));
  });
});
