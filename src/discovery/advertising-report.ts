// The framing of an HCI LE advertising report event, checked before noble parses it. noble catches
// a report whose lengths lie and only prints a warning, so such a report would be neither heard
// nor counted; checked here, it is counted as dropped (noble-loader.ts), and a capture holding one
// is refused with the reason (btsnoop.ts).

/** LE Meta event, subevent Advertising Report (0x02) or Extended Advertising Report (0x0d); H4 type byte first. */
export function isAdvertisingReport(packet: Buffer): boolean {
  return packet.length > 3 && packet[0] === 0x04 && packet[1] === 0x3e && (packet[3] === 0x02 || packet[3] === 0x0d);
}

/** What noble would trip over in an advertising report event, or undefined when it is sound. */
export function advertisingReportProblem(packet: Buffer): string | undefined {
  const parameters = packet.length - 3;
  if (packet[2] !== parameters) return `announces ${packet[2]} parameter bytes but holds ${parameters}`;
  const reports = packet[4] ?? 0;
  if (parameters < 2 || reports === 0) return 'holds no report';
  // Each report: fixed fields, then its data length and data (legacy: RSSI after the data).
  const extended = packet[3] === 0x0d;
  const fixed = extended ? 24 : 10;
  const lengthAt = extended ? 23 : 8;
  let at = 5;
  for (let report = 1; report <= reports; report++) {
    if (at + fixed > packet.length) return `ends inside report ${report} of ${reports}`;
    at += fixed + packet[at + lengthAt]!;
    if (at > packet.length) return `report ${report} of ${reports} announces more data than the event holds`;
  }
  return undefined;
}
