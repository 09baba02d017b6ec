// Plain-text building blocks of the CLI's output: aligned tables, durations, JSON documents.
// Pure functions of their input (the clock is passed in), so the output is testable as text.
// Tables and durations are the fleet's words too: they live below both (src/text.ts).

import { duration } from '../text.js';

export { duration, table } from '../text.js';

/** One fact a line, the labels aligned: `MQTT         connected`. */
export function facts(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`.trimEnd()).join('\n') + '\n';
}

/** `12 s ago`; the ISO time itself when it cannot be read. */
export function ago(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return `${duration(now - at)} ago`;
}

/** " to customer N" after a link's words when `pair --customer N` chose one; nothing otherwise. */
export function toCustomer(customerId: number | undefined): string {
  return customerId === undefined ? '' : ` to customer ${customerId}`;
}

export function rssiText(rssi: number | undefined): string {
  return rssi === undefined ? '-' : `${Math.round(rssi)} dBm`;
}

/** One JSON document on stdout, the only thing `--json` prints there. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}
