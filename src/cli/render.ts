// Plain-text building blocks of the CLI's output: aligned tables, durations, JSON documents.
// Pure functions of their input (the clock is passed in), so the output is testable as text.

/** Columns padded to their widest cell; the last column is not padded (no trailing spaces). */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    headers
      .map((_, column) => {
        const cell = cells[column] ?? '';
        return column === headers.length - 1 ? cell : cell.padEnd(widths[column] ?? 0);
      })
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** One fact a line, the labels aligned: `MQTT         connected`. */
export function facts(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`.trimEnd()).join('\n') + '\n';
}

/** `3 s`, `4 min 12 s`, `2 h 5 min`, `3 d 4 h`: what an installer reads at a glance. */
export function duration(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
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
