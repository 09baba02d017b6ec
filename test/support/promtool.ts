import { spawnSync } from 'node:child_process';
import { findExecutable } from './installed.js';

// Prometheus's own checker of the text exposition format (Debian: the `prometheus` package):
// exit 0 and no output for a valid, lint-clean text; 1 for a parse error, 3 for lint problems.

export const promtool = findExecutable('promtool');

export function checkWithPromtool(text: string): { code: number | null; output: string } {
  if (promtool === undefined) throw new Error('promtool not found (apt-get install prometheus)');
  const result = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}
