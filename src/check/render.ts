import type { CheckReport, CheckResult } from './result.js';

// One line a check. A terminal gets marks; a pipe or a log gets words that grep well.

const LABELS: Record<CheckResult['name'], string> = {
  configuration: 'configuration',
  clock: 'clock',
  token: 'API token',
  api: 'API',
  entitlement: 'entitlement',
  mqtt: 'MQTT',
  ble: 'BLE',
  page: 'page',
};
const RESTART = 'sudo systemctl restart panic-pair';
const WIDTH = Math.max(...Object.values(LABELS).map((label) => label.length));

function mark(check: CheckResult, tty: boolean): string {
  if (check.skipped) return tty ? '–' : 'SKIP';
  if (check.ok) return tty ? '✔' : 'PASS';
  return tty ? '✘' : 'FAIL';
}

export function renderLine(check: CheckResult, tty: boolean): string {
  const fix = check.fix === undefined ? '' : ` — fix: ${check.fix}`;
  return `${mark(check, tty)} ${LABELS[check.name].padEnd(WIDTH)}  ${check.detail}${fix}`;
}

export function renderReport(report: CheckReport, tty: boolean): string {
  const lines = report.checks.map((check) => renderLine(check, tty));
  const failed = report.checks.filter((check) => !check.ok && !check.skipped).length;
  lines.push(report.ok ? 'ready: every enabled check passed' : `not ready: ${failed} check${failed === 1 ? '' : 's'} failed`);
  // The daemon reads its settings and the unit's token credential as it starts: the last step.
  const readAtStart = (check: CheckResult): boolean => check.name === 'configuration' || check.name === 'token' || check.readAtStart === true;
  if (report.checks.some((check) => !check.ok && !check.skipped && readAtStart(check))) {
    lines.push(`once fixed: ${RESTART}`);
  }
  return `${lines.join('\n')}\n`;
}
