import { describe, expect, it } from 'vitest';
import { writeJsonRows } from '../../src/fleet/fleet-json.js';
import type { HubRow } from '../../src/fleet/hub-row.js';

// `fleet --json` written in parts is, byte for byte, what JSON.stringify(rows, null, 2) printed.

function row(i: number): HubRow {
  return {
    hub: `hub-${i}`, state: 'healthy', cause: 'none', reason: 'up 1 d', version: '0.1.0',
    buttons: { linked: 3, online: 3, missing: 0, unknown: 0, unsupervised: 0, batteryLow: 0 },
    problems: i % 2 === 0 ? [] : ['a "quoted"\nproblem'], healthAt: '2026-11-27T00:00:00.000Z', uptimeSeconds: 5, daemon: 'online', bridge: 'up', update: null,
  };
}

describe('writeJsonRows', () => {
  for (const count of [0, 1, 499, 500, 501, 1_234]) {
    it(`${count} rows: the same text as one JSON.stringify`, async () => {
      const rows = Array.from({ length: count }, (_, i) => row(i));
      const parts: string[] = [];
      await writeJsonRows(rows, (text) => {
        parts.push(text);
      });
      expect(parts.join('')).toBe(`${JSON.stringify(rows, null, 2)}\n`);
      expect(parts.length).toBe(Math.max(1, Math.ceil(count / 500)));
    });
  }
});
